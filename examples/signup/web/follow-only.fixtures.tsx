/**
 * A page that only follows a flow (a second device given the flow's id and secret, as a QR code would
 * hand them over): it never starts, so it has heard nothing from the server before it follows. Built and
 * served by the browser tests only (signup-follow-clock.test.ts), which hand it `window.__follow`.
 *
 * @module
 */
import type { ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { createFlowClient, type FlowView } from '@verikit/client';
import { FlowClientProvider, ResendButton, useFlow } from '@verikit/react';

const { view, secret } = (window as unknown as { __follow: { view: FlowView; secret: string } }).__follow;
const client = createFlowClient({
  baseUrl: '/api/verify',
  headers: { 'verikit-flow-secret': secret },
  storage: false,
  ownerStorage: false,
});

function Follow(): ReactNode {
  const flow = useFlow(view.id, { initialView: view });
  return (
    <main data-status={flow.view?.status} data-connection={flow.connection}>
      <ResendButton flow={flow} />
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <FlowClientProvider client={client}>
    <Follow />
  </FlowClientProvider>,
);
