// @vitest-environment jsdom
import { act, cleanup, configure, render, renderHook, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { createFlowClient, type FlowClient, type FlowView } from '@verikit/client';
import { useState, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { phoneNumber, startFlowServer, type FlowServer } from '../../client/src/client.fixtures.js';
import { FlowClientProvider } from './flow-client-context.js';
import { OtpInput } from './otp-input.js';
import { ResendButton } from './resend-button.js';
import { useCountdown } from './use-countdown.js';
import { useFlow } from './use-flow.js';
import { useStartFlow } from './use-start-flow.js';

// These tests wait on a real server: `waitFor`'s bound is on a hang, not on speed (its default, 1 s, failed a start
// at a load of 23, on main as on this change).
configure({ asyncUtilTimeout: 30_000 });

let server: FlowServer | undefined;
afterEach(async () => {
  cleanup();
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

function wrapperFor(client: FlowClient): (props: { children: ReactNode }) => ReactNode {
  return ({ children }) => <FlowClientProvider client={client}>{children}</FlowClientProvider>;
}

function Verify() {
  const { start, view: started, error: startError } = useStartFlow();
  const flow = useFlow(started?.id, { initialView: started, reconnectDelayMs: 5 });
  const [code, setCode] = useState('');
  if (started === undefined) {
    return (
      <>
        <button type="button" onClick={() => void start({ kind: 'phone', phoneNumber })}>
          Send me a code
        </button>
        {startError === undefined ? null : <p role="alert">{startError.field}</p>}
      </>
    );
  }
  return (
    <>
      <p data-testid="status">{flow.view?.status}</p>
      <p data-testid="connection">{flow.connection}</p>
      <OtpInput
        value={code}
        onChange={setCode}
        onComplete={(whole) => void flow.submitCode(whole)}
        invalid={flow.view?.error !== undefined}
      />
      <ResendButton flow={flow} />
      {flow.sendError === undefined ? null : <p role="alert">{flow.sendError.code}</p>}
    </>
  );
}

describe('useStartFlow + useFlow against a real flow server', () => {
  it('starts a flow, follows it live, and shows verified after the code is typed', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const user = userEvent.setup();
    render(<Verify />, { wrapper: wrapperFor(client) });
    await user.click(screen.getByRole('button', { name: 'Send me a code' }));
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('awaiting-code'));
    await waitFor(() => expect(screen.getByTestId('connection').textContent).toBe('open'));
    expect(screen.getByRole('button', { name: /Resend code in 0:(29|30)/ }).getAttribute('aria-disabled')).toBe('true');
    await user.click(screen.getAllByRole('textbox')[0]!);
    await user.keyboard(server.provider.lastCode(phoneNumber)!);
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('verified'));
    await waitFor(() => expect(screen.getByTestId('connection').textContent).toBe('closed'));
    await waitFor(() => expect(server!.bus.active).toBe(0));
  });

  it('isChecking is true from the moment a code is sent until the answer, whatever the view says meanwhile', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const started = await client.start({ kind: 'phone', phoneNumber });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.intercept = async (request) => {
      if (request.method === 'POST' && request.url.endsWith('/events')) await held;
      return undefined;
    };
    const { result } = renderHook(() => useFlow(started.id, { initialView: started }), {
      wrapper: wrapperFor(client),
    });
    expect(result.current.isChecking).toBe(false);
    let answer: Promise<FlowView | undefined> = Promise.resolve(undefined);
    act(() => {
      answer = result.current.submitCode('000000');
    });
    expect(result.current.isChecking).toBe(true);
    expect(result.current.view?.status).toBe('awaiting-code');
    release();
    await act(() => answer);
    await waitFor(() => expect(result.current.isChecking).toBe(false));
    expect(result.current.view?.attemptsLeft).toBe(started.attemptsLeft! - 1);
  });

  it('shows a change made elsewhere (the stream), and disconnects on unmount', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const started = await client.start({ kind: 'phone', phoneNumber });
    const { result, unmount } = renderHook(() => useFlow(started.id, { initialView: started }), {
      wrapper: wrapperFor(client),
    });
    expect(result.current.view).toEqual(started);
    await waitFor(() => expect(result.current.connection).toBe('open'));
    await server.verikit.send(started.id, { type: 'submit-code', code: '000000' });
    await waitFor(() => expect(result.current.view?.attemptsLeft).toBe(started.attemptsLeft! - 1));
    expect(server.bus.active).toBe(1);
    unmount();
    await waitFor(() => expect(server!.bus.active).toBe(0));
  });

  it('send errors land in sendError (never a rejection): a malformed code names event.code', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const started = await client.start({ kind: 'phone', phoneNumber });
    const { result } = renderHook(() => useFlow(started.id, { initialView: started }), { wrapper: wrapperFor(client) });
    let answer: FlowView | undefined = started;
    await act(async () => {
      answer = await result.current.submitCode('12');
    });
    expect(answer).toBeUndefined();
    expect(result.current.sendError).toMatchObject({ code: 'invalid_input', field: 'event.code' });
    expect(result.current.isSending).toBe(false);
    await act(async () => {
      answer = await result.current.cancel();
    });
    expect(answer).toMatchObject({ status: 'cancelled' });
    expect(result.current.sendError).toBeUndefined();
    expect(result.current.view?.status).toBe('cancelled');
  });

  it('useStartFlow reports a refused start with its field, and reset forgets it', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const { result } = renderHook(() => useStartFlow(), { wrapper: wrapperFor(client) });
    await act(async () => {
      await result.current.start({ kind: 'phone', phoneNumber: '0801' });
    });
    expect(result.current.error).toMatchObject({ code: 'invalid_input', field: 'phoneNumber' });
    expect(result.current.view).toBeUndefined();
    act(() => result.current.reset());
    expect(result.current.error).toBeUndefined();
  });

  it('useFlow(undefined) is idle and connects nowhere; without a provider it says what is missing', async () => {
    const fetch = vi.fn();
    const client = createFlowClient({ baseUrl: 'http://127.0.0.1:9', fetch });
    const { result } = renderHook(() => useFlow(undefined), { wrapper: wrapperFor(client) });
    expect(result.current).toMatchObject({
      flowId: undefined,
      view: undefined,
      connection: 'idle',
      observer: undefined,
    });
    expect(await result.current.resend()).toBeUndefined();
    expect(fetch).not.toHaveBeenCalled();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => renderHook(() => useFlow(undefined))).toThrow(/FlowClientProvider/);
  });
});

describe('useCountdown', () => {
  it('counts down in whole steps until 0, and is undefined without a deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const deadline = Date.now() + 2_500;
    const { result, rerender } = renderHook(({ at }: { at: number | undefined }) => useCountdown(at), {
      initialProps: { at: deadline as number | undefined },
    });
    expect(result.current).toBe(3_000);
    await act(async () => {
      vi.advanceTimersByTime(600);
    });
    expect(result.current).toBe(2_000);
    await act(async () => {
      vi.advanceTimersByTime(2_000);
    });
    expect(result.current).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    rerender({ at: undefined });
    expect(result.current).toBeUndefined();
    rerender({ at: Date.now() - 10 });
    expect(result.current).toBe(0);
  });
});
