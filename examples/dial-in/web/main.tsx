/**
 * The dial-in page: the user types a number, the page shows the USSD code to dial (a `tel:` link on a phone),
 * and the flow's live view turns to verified when the carrier reports the dial. It speaks the browser's language
 * when it has it (English, French).
 *
 * @module
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createFlowClient } from '@verikit/client';
import { FlowClientProvider } from '@verikit/react';
import '@verikit/example-page-parts/page.css';
import { Announcer, pageLocale } from '@verikit/example-page-parts';
import { DialInPage } from './dial-in-page.js';
import { pageMessages } from './messages.js';

const locale = pageLocale(navigator.languages, ['en', 'fr']);
document.documentElement.lang = locale;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <FlowClientProvider client={createFlowClient({ baseUrl: '/api/verify' })} locale={locale} messages={pageMessages}>
      <Announcer>
        <DialInPage />
      </Announcer>
    </FlowClientProvider>
  </StrictMode>,
);
