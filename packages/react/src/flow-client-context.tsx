import { createContext, useContext, type ReactNode } from 'react';
import type { FlowClient } from '@verikit/client';

const FlowClientContext = createContext<FlowClient | undefined>(undefined);

/** Props of {@link FlowClientProvider}. */
export interface FlowClientProviderProps {
  /** The client the hooks below use (`createFlowClient`), created once, outside render. */
  client: FlowClient;
  /** The part of the app that uses the hooks. */
  children?: ReactNode;
}

/** Makes a flow client available to `useFlow` and `useStartFlow` below it. */
export function FlowClientProvider({ client, children }: FlowClientProviderProps): ReactNode {
  return <FlowClientContext.Provider value={client}>{children}</FlowClientContext.Provider>;
}

/** The client of the nearest {@link FlowClientProvider}; throws when there is none, since nothing could work without it. */
export function useFlowClient(): FlowClient {
  const client = useContext(FlowClientContext);
  if (client === undefined)
    throw new Error('useFlowClient: wrap the component in <FlowClientProvider client={createFlowClient(…)}>');
  return client;
}
