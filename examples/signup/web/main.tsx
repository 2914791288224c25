/**
 * The signup page: the flow client talks to the flow API the server mounts under /api/verify.
 *
 * @module
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createFlowClient } from '@verikit/client';
import { FlowClientProvider } from '@verikit/react';
import { SignupApp } from './signup-app.js';
import './styles.css';

const client = createFlowClient({ baseUrl: '/api/verify' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <FlowClientProvider client={client}>
      <SignupApp />
    </FlowClientProvider>
  </StrictMode>,
);
