/**
 * The signup page: the flow client talks to the flow API the server mounts under /api/verify; the
 * page speaks the browser's language when it has it (English, French).
 *
 * @module
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createFlowClient, formatMessage } from '@verikit/client';
import { FlowClientProvider } from '@verikit/react';
import '@verikit/example-page-parts/page.css';
import { Announcer, pageLocale } from '@verikit/example-page-parts';
import { pageMessages } from './messages.js';
import { SignupApp } from './signup-app.js';
import './styles.css';

const client = createFlowClient({ baseUrl: '/api/verify' });
const locale = pageLocale(navigator.languages, ['en', 'fr']);
document.documentElement.lang = locale;
document.title = formatMessage('signup.title', { locale, catalogues: pageMessages });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <FlowClientProvider client={client} locale={locale} messages={pageMessages}>
      <Announcer>
        <SignupApp />
      </Announcer>
    </FlowClientProvider>
  </StrictMode>,
);
