// @vitest-environment node
import { createFlowClient, type FlowView } from '@verikit/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { FlowClientProvider } from './flow-client-context.js';
import { OtpInput } from './otp-input.js';
import { ResendButton } from './resend-button.js';
import { UssdInstructions } from './ussd-instructions.js';
import { useCountdown } from './use-countdown.js';
import { useFlow } from './use-flow.js';

const view: FlowView = Object.freeze({
  id: 'AbCdEfGhIjKlMnOpQrStUv',
  kind: 'ussd',
  status: 'awaiting-dial',
  done: false,
  allowed: ['cancel'],
  phoneNumber: '+234******5678',
  ussdCode: '*384*1234#',
  otp: '4321',
  resendAvailableAt: Date.now() + 30_000,
  expiresAt: Date.now() + 600_000,
  version: 2,
  createdAt: Date.now(),
  updatedAt: Date.now(),
});

function Page() {
  const flow = useFlow(view.id, { initialView: view });
  const expiresIn = useCountdown(flow.localExpiresAt);
  return (
    <main>
      <p>{flow.view?.status}</p>
      <p>{expiresIn === undefined ? 'valid for a while' : `${expiresIn} ms`}</p>
      <UssdInstructions ussdCode={flow.view?.ussdCode} otp={flow.view?.otp} />
      <OtpInput value="" onChange={() => undefined} />
      <ResendButton flow={{ ...flow, resend: flow.restart }} event="restart" />
    </main>
  );
}

describe('server rendering', () => {
  it('renders the initial view with no window, no request and no clock-dependent text', () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
    const fetch = vi.fn();
    const client = createFlowClient({ baseUrl: '/api/verify', fetch });
    const html = renderToString(
      <FlowClientProvider client={client}>
        <Page />
      </FlowClientProvider>,
    );
    expect(html).toContain('awaiting-dial');
    expect(html).toContain('href="tel:*384*1234%23"');
    expect(html).toContain('<strong>4321</strong>');
    expect(html).toContain('valid for a while');
    expect(html).toContain('aria-disabled="true"');
    expect(html).toMatch(/autocomplete="one-time-code"/i);
    expect(fetch).not.toHaveBeenCalled();
  });
});
