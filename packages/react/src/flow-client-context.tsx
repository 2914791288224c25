import { createContext, useContext, type ReactNode } from 'react';
import { defaultCatalogues, formatMessage, type FlowClient, type MessageCatalogues } from '@verikit/client';

const FlowClientContext = createContext<FlowClient | undefined>(undefined);
const LocaleContext = createContext<{ locale: string; messages: MessageCatalogues }>({
  locale: 'en',
  messages: defaultCatalogues,
});

/** Props of {@link FlowClientProvider}. */
export interface FlowClientProviderProps {
  /** The client the hooks below use (`createFlowClient`), created once, outside render. */
  client: FlowClient;
  /** The language of the parts' labels (`fr`, `fr-FR`). Default `en`. */
  locale?: string;
  /**
   * The catalogues the parts read their labels from. Default English only: give the page's languages, e.g.
   * `{ en: englishMessages, fr: frenchMessages }` from `@verikit/client` (each catalogue given is shipped to the page).
   */
  messages?: MessageCatalogues;
  /** The part of the app that uses the hooks. */
  children?: ReactNode;
}

/** Makes a flow client (and the language of the parts) available to the hooks and parts below it. */
export function FlowClientProvider({ client, locale, messages, children }: FlowClientProviderProps): ReactNode {
  return (
    <FlowClientContext.Provider value={client}>
      <LocaleContext.Provider value={{ locale: locale ?? 'en', messages: messages ?? defaultCatalogues }}>
        {children}
      </LocaleContext.Provider>
    </FlowClientContext.Provider>
  );
}

/** The client of the nearest {@link FlowClientProvider}; throws when there is none, since nothing could work without it. */
export function useFlowClient(): FlowClient {
  const client = useContext(FlowClientContext);
  if (client === undefined)
    throw new Error('useFlowClient: wrap the component in <FlowClientProvider client={createFlowClient(…)}>');
  return client;
}

/**
 * The text of a message id (`formatMessage` of `@verikit/client`) in the language of `locale`, else the
 * `FlowClientProvider`'s, from its catalogues (English without a provider). What the parts use, and an app's
 * own text can too: add its ids to the catalogues given to the provider.
 *
 * @example
 * const message = useMessage();
 * message('verikit.error.flow_not_found'); // "This verification has ended. Start again."
 */
export function useMessage(locale?: string): (id: string, params?: Record<string, string | number>) => string {
  const context = useContext(LocaleContext);
  return (id, params) => formatMessage(id, { locale: locale ?? context.locale, catalogues: context.messages, params });
}
