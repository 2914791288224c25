// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi, type Mock } from 'vitest';
import { createFlowClient, messages } from '@verikit/client';
import { FlowClientProvider } from './flow-client-context.js';
import { OtpInput, type OtpInputProps } from './otp-input.js';
import { ResendButton, type ResendButtonFlow } from './resend-button.js';
import { ussdTelHref } from './tel-href.js';
import { UssdInstructions } from './ussd-instructions.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function ControlledOtp(
  props: Partial<OtpInputProps> & { onDone?: (code: string) => void; onValue?: (value: string) => void },
) {
  const [value, setValue] = useState('');
  return (
    <OtpInput
      {...props}
      value={value}
      onChange={(next) => {
        props.onValue?.(next);
        setValue(next);
      }}
      onComplete={props.onDone}
    />
  );
}

describe('OtpInput', () => {
  it('split: a labelled group of numeric fields, the first offering one-time-code autofill', () => {
    render(<ControlledOtp length={4} />);
    const group = screen.getByRole('group', { name: 'Verification code' });
    const fields = screen.getAllByRole('textbox');
    expect(group.contains(fields[0]!)).toBe(true);
    expect(fields).toHaveLength(4);
    expect(fields.map((field) => field.getAttribute('aria-label'))).toEqual([
      'Digit 1 of 4',
      'Digit 2 of 4',
      'Digit 3 of 4',
      'Digit 4 of 4',
    ]);
    expect(fields[0]!.getAttribute('autocomplete')).toBe('one-time-code');
    for (const field of fields) {
      expect(field.getAttribute('inputmode')).toBe('numeric');
      expect(field.getAttribute('pattern')).toBe('[0-9]*');
    }
  });

  it('typing moves through the fields, ignores non-digits, and completes with the whole code', async () => {
    const user = userEvent.setup();
    const done = vi.fn();
    render(<ControlledOtp onDone={done} />);
    const fields = screen.getAllByRole('textbox') as HTMLInputElement[];
    await user.click(fields[0]!);
    await user.keyboard('12a3');
    expect(fields.map((field) => field.value)).toEqual(['1', '2', '3', '', '', '']);
    expect(document.activeElement).toBe(fields[3]);
    await user.keyboard('456');
    expect(done).toHaveBeenCalledOnce();
    expect(done).toHaveBeenCalledWith('123456');
  });

  it('pasting (or autofilling) the code into any field fills them all', async () => {
    const user = userEvent.setup();
    const done = vi.fn();
    render(<ControlledOtp onDone={done} />);
    const fields = screen.getAllByRole('textbox') as HTMLInputElement[];
    await user.click(fields[0]!);
    await user.paste('Your code: 987-654');
    expect(fields.map((field) => field.value)).toEqual(['9', '8', '7', '6', '5', '4']);
    expect(done).toHaveBeenCalledWith('987654');
    // Autofill writes the whole code into the focused field at once.
    cleanup();
    const filled = vi.fn();
    render(<ControlledOtp onDone={filled} />);
    fireEvent.change(screen.getAllByRole('textbox')[0]!, { target: { value: '246810' } });
    expect(filled).toHaveBeenCalledWith('246810');
  });

  it('Backspace clears the digit, then goes back; arrows move; a click past the first empty field lands on it', async () => {
    const user = userEvent.setup();
    const values: string[] = [];
    render(<ControlledOtp length={4} onValue={(value) => values.push(value)} />);
    const fields = screen.getAllByRole('textbox') as HTMLInputElement[];
    await user.click(fields[3]!);
    expect(document.activeElement).toBe(fields[0]);
    await user.keyboard('123');
    await user.keyboard('{Backspace}');
    expect(values.at(-1)).toBe('12');
    expect(document.activeElement).toBe(fields[2]);
    await user.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(document.activeElement).toBe(fields[0]);
    await user.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(fields[1]);
  });

  it('a digit typed over one lands there and moves on, even the same digit (12345, back to 1, type 1 then 7: 17345)', async () => {
    const user = userEvent.setup();
    const values: string[] = [];
    render(<ControlledOtp onValue={(value) => values.push(value)} />);
    const fields = screen.getAllByRole('textbox') as HTMLInputElement[];
    await user.click(fields[0]!);
    await user.keyboard('12345');
    await user.click(fields[0]!);
    await user.keyboard('1');
    expect(document.activeElement).toBe(fields[1]);
    await user.keyboard('7');
    expect(fields.map((field) => field.value)).toEqual(['1', '7', '3', '4', '5', '']);
    expect(values.at(-1)).toBe('17345');
  });

  it('one submit per completed entry: correcting a digit of a complete code does not submit again; Enter does', async () => {
    const user = userEvent.setup();
    const done = vi.fn();
    render(<ControlledOtp onDone={done} />);
    const fields = screen.getAllByRole('textbox') as HTMLInputElement[];
    await user.click(fields[0]!);
    await user.keyboard('123456');
    expect(done).toHaveBeenCalledTimes(1);
    await user.click(fields[2]!);
    await user.keyboard('9');
    await user.keyboard('8');
    expect(fields.map((field) => field.value).join('')).toBe('129856');
    expect(done).toHaveBeenCalledTimes(1);
    await user.keyboard('{Enter}');
    expect(done).toHaveBeenCalledTimes(2);
    expect(done).toHaveBeenLastCalledWith('129856');
  });

  it('a whole code pasted into a later field fills from the first; labels follow the locale', async () => {
    const user = userEvent.setup();
    const done = vi.fn();
    // The French labels come from the catalogues the page gives (English alone by default).
    render(
      <FlowClientProvider client={createFlowClient({ baseUrl: 'http://127.0.0.1:9/api' })} messages={messages}>
        <ControlledOtp onDone={done} locale="fr" />
      </FlowClientProvider>,
    );
    const fields = screen.getAllByRole('textbox') as HTMLInputElement[];
    expect(screen.getByRole('group', { name: 'Code de vérification' })).toBeDefined();
    expect(fields[1]!.getAttribute('aria-label')).toBe('Chiffre 2 sur 6');
    for (const field of fields) expect(field.getAttribute('autocomplete')).toBe('one-time-code');
    await user.click(fields[0]!);
    await user.keyboard('12');
    await user.paste('654321');
    expect(fields.map((field) => field.value).join('')).toBe('654321');
    expect(done).toHaveBeenCalledOnce();
  });

  it('focus comes back to the first empty field when the fields are enabled again after a check', async () => {
    const user = userEvent.setup();
    const { rerender } = render(<OtpInput value="1234" onChange={() => undefined} />);
    const fields = screen.getAllByRole('textbox') as HTMLInputElement[];
    await user.click(fields[3]!);
    rerender(<OtpInput value="" onChange={() => undefined} disabled />);
    (document.activeElement as HTMLElement | null)?.blur();
    rerender(<OtpInput value="" onChange={() => undefined} />);
    expect(document.activeElement).toBe(fields[0]);
  });

  it('single: one field with one-time-code, digits only, invalid and described when told', async () => {
    const user = userEvent.setup();
    const done = vi.fn();
    render(
      <>
        <ControlledOtp
          mode="single"
          length={6}
          onDone={done}
          invalid
          describedBy="code-error"
          label="SMS code"
          name="code"
        />
        <p id="code-error">Wrong code</p>
      </>,
    );
    const field = screen.getByRole('textbox', { name: 'SMS code' }) as HTMLInputElement;
    expect(field.getAttribute('autocomplete')).toBe('one-time-code');
    expect(field.getAttribute('inputmode')).toBe('numeric');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(field).toHaveProperty('name', 'code');
    expect(field.getAttribute('aria-describedby')).toBe('code-error');
    await user.type(field, '12 34x5678');
    expect(field.value).toBe('123456');
    expect(done).toHaveBeenCalledWith('123456');
  });
});

describe('ResendButton', () => {
  function flowWith(
    allowed: string[],
    localResendAvailableAt: number | undefined,
  ): ResendButtonFlow & { resend: Mock<() => unknown>; restart: Mock<() => unknown> } {
    return {
      view: { allowed },
      localResendAvailableAt,
      resend: vi.fn<() => unknown>(),
      restart: vi.fn<() => unknown>(),
    };
  }

  it('counts down the cooldown, stays focusable but aria-disabled, and ignores clicks until it ends', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const flow = flowWith(['submit-code', 'cancel'], Date.now() + 65_000);
    const { rerender } = render(<ResendButton flow={flow} />);
    const button = screen.getByRole('button');
    expect(button.textContent).toBe('Resend code in 1:05');
    expect(button.getAttribute('aria-disabled')).toBe('true');
    expect(button).not.toHaveProperty('disabled', true);
    fireEvent.click(button);
    expect(flow.resend).not.toHaveBeenCalled();
    await act(async () => {
      vi.advanceTimersByTime(6_000);
    });
    expect(button.textContent).toBe('Resend code in 0:59');
    await act(async () => {
      vi.advanceTimersByTime(60_000);
    });
    expect(button.textContent).toBe('Resend code');
    // Time is up, but the server has not allowed it yet (the observer re-reads at the deadline).
    expect(button.getAttribute('aria-disabled')).toBe('true');
    const allowed = { ...flow, view: { allowed: ['submit-code', 'resend', 'cancel'] } };
    rerender(<ResendButton flow={allowed} />);
    expect(button.getAttribute('aria-disabled')).toBe('false');
    fireEvent.click(button);
    expect(flow.resend).toHaveBeenCalledOnce();
  });

  it('sends restart for USSD, takes a custom label and the button attributes', () => {
    const flow = flowWith(['restart', 'cancel'], undefined);
    render(
      <ResendButton flow={flow} event="restart" className="link">
        {({ canResend }) => (canResend ? 'Get a new code' : 'Wait')}
      </ResendButton>,
    );
    const button = screen.getByRole('button', { name: 'Get a new code' });
    expect(button.className).toBe('link');
    expect(button.getAttribute('type')).toBe('button');
    fireEvent.click(button);
    expect(flow.restart).toHaveBeenCalledOnce();
    expect(flow.resend).not.toHaveBeenCalled();
  });

  it('is aria-disabled while sending or without a view', () => {
    render(<ResendButton flow={{ ...flowWith(['resend'], undefined), isSending: true }} />);
    expect(screen.getByRole('button').getAttribute('aria-disabled')).toBe('true');
    cleanup();
    render(<ResendButton flow={{ view: undefined, localResendAvailableAt: undefined, resend: vi.fn() }} />);
    expect(screen.getByRole('button').getAttribute('aria-disabled')).toBe('true');
  });
});

describe('UssdInstructions and ussdTelHref', () => {
  it('links the USSD code with the # encoded, and shows the OTP to enter', () => {
    render(<UssdInstructions ussdCode="*384*1234#" otp="4321" className="ussd" />);
    const link = screen.getByRole('link', { name: '*384*1234#' });
    expect(link.getAttribute('href')).toBe('tel:*384*1234%23');
    expect(screen.getByText('4321').tagName).toBe('STRONG');
    expect(link.closest('div')?.className).toBe('ussd');
  });

  it('renders nothing without a code, and a custom layout with children', () => {
    const { container } = render(<UssdInstructions ussdCode={undefined} />);
    expect(container.innerHTML).toBe('');
    render(<UssdInstructions ussdCode="*384#">{({ href }) => <a href={href}>Tap to dial</a>}</UssdInstructions>);
    expect(screen.getByRole('link', { name: 'Tap to dial' }).getAttribute('href')).toBe('tel:*384%23');
  });

  it('never makes a link of a code that is not dialable: shown as text, escaped', () => {
    render(<UssdInstructions ussdCode={'javascript:alert(1)//#'} />);
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByText('javascript:alert(1)//#').tagName).toBe('STRONG');
  });

  it('ussdTelHref: digits, *, # and a leading + only', () => {
    expect(ussdTelHref('*384*1234#')).toBe('tel:*384*1234%23');
    // A dial-in code: the reference after the service code, every `*` kept.
    expect(ussdTelHref('*384*1234*58392100#')).toBe('tel:*384*1234*58392100%23');
    expect(ussdTelHref('+2348012345678')).toBe('tel:+2348012345678');
    expect(ussdTelHref('##002#')).toBe('tel:%23%23002%23');
    for (const bad of ['', '*384 1234#', 'tel:*384#', '*384*1234#?x=1', '1+2', '#'.repeat(65), undefined])
      expect(ussdTelHref(bad)).toBeUndefined();
  });
});
