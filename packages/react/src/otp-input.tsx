import { useEffect, useRef, type ClipboardEvent, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { hasWebOtp, isCodeForHost, parseOriginBoundCode, receiveWebOtp, type OriginBoundCode } from '@verikit/client';
import { useMessage } from './flow-client-context.js';

/** Props of {@link OtpInput}. */
export interface OtpInputProps {
  /** The digits entered so far. */
  value: string;
  /** Called with the digits (never anything else) whenever they change. */
  onChange(value: string): void;
  /**
   * Called with the whole code once per completed entry: when the last missing digit is entered (typed,
   * pasted or autofilled), or on Enter with every digit there. Changing a digit of a code already complete
   * does not call it again (press Enter): a correction never sends a burst of codes.
   */
  onComplete?(code: string): void;
  /** Digits in the code. Default 6. */
  length?: number;
  /** One field per digit (`split`, default) or one field for the whole code (`single`). */
  mode?: 'split' | 'single';
  /** The accessible name of the code. Default the catalogue's `verikit.code.label` ("Verification code"). */
  label?: string;
  /** The language of the labels (`fr`); default the `FlowClientProvider`'s. */
  locale?: string;
  /** Marks the code wrong (`aria-invalid`), after the server refused it. */
  invalid?: boolean;
  /** The id of the element describing the code or its error (`aria-describedby`). */
  describedBy?: string;
  /**
   * Disables every field, e.g. while the code is being checked (`useFlow`'s `isChecking`). When the fields
   * come back and focus was lost with them, it returns to the first empty field.
   */
  disabled?: boolean;
  /** Focuses the (first) field on mount: for a page whose only task is the code. */
  autoFocus?: boolean;
  /** A form field name: the code is submitted under it. */
  name?: string;
  /** Class of the wrapper (`split`) or of the field (`single`). */
  className?: string;
  /** Class of each digit field (`split`). */
  inputClassName?: string;
  /**
   * Where the browser offers WebOTP (`OTPCredential`, Chrome on Android), waits for a code from an SMS bound to
   * this page's origin (`@your.site #123456` as its last line) while the input is on screen: the user's one tap
   * fills the fields and submits (`onComplete`), and the wait is aborted (`AbortController`) when the input goes.
   * Elsewhere nothing happens and the fields work as always. Default true; false never asks the browser.
   */
  webOtp?: boolean;
  /**
   * Called instead of filling the fields when the text pasted or autofilled is an origin-bound message for
   * another site (`@other.site #123456` as its last line, where `other.site` is neither this page's host nor a
   * parent of it): such a code was sent for someone else's page, so it is refused. Say so to the user
   * (`verikit.code.other_site`).
   */
  onForeignCode?(bound: OriginBoundCode): void;
  /** The host codes must be bound to. Default this page's (`location.hostname`). */
  host?: string;
}

/** The digits of `text`, the first `length` of them. */
function digitsOf(text: string, length?: number): string {
  return text.replace(/\D/g, '').slice(0, length);
}

/** The one digit a keystroke or an input event inserts, or undefined (a paste, an autofill, a letter). */
function typedDigit(data: string | null | undefined): string | undefined {
  return data !== null && data !== undefined && /^\d$/.test(data) ? data : undefined;
}

/**
 * A one-time-code input, unstyled, that behaves like input-otp and the platforms' code fields: each
 * digit typed lands in the focused field and moves on, also over the same digit; a whole code pasted
 * or autofilled (`autocomplete="one-time-code"` on every field) into any field fills them all;
 * Backspace on an empty field goes back; arrow keys move; `onComplete` fires once per completed
 * entry. In `split` mode the fields form a labelled group, each named "Digit 2 of 6" (from the
 * message catalogue, in the `locale`).
 */
export function OtpInput(props: OtpInputProps): ReactNode {
  const {
    value,
    onChange,
    onComplete,
    length: rawLength = 6,
    mode = 'split',
    label: labelProp,
    locale,
    invalid = false,
    describedBy,
    disabled,
    autoFocus,
    name,
    className,
    inputClassName,
    webOtp = true,
    onForeignCode,
    host: hostProp,
  } = props;
  const message = useMessage(locale);
  const label = labelProp ?? message('verikit.code.label');
  const length = Math.min(12, Math.max(1, Math.floor(rawLength)));
  const digits = digitsOf(value, length);
  const fields = useRef<Array<HTMLInputElement | null>>([]);
  // The digits as last committed: focus moves before React renders them, and handlers must see them.
  const latest = useRef(digits);
  latest.current = digits;

  // Disabling the focused field drops focus to the page; when the fields come back, focus comes back to them.
  const focusLost = useRef(false);
  useEffect(() => {
    if (disabled === true) {
      focusLost.current = true;
      return;
    }
    if (!focusLost.current) return;
    focusLost.current = false;
    const active = typeof document === 'undefined' ? null : document.activeElement;
    // Lost to the page (Chrome's focus fix-up) or still on a field that was disabled (other browsers).
    const ours = fields.current.some((field) => field !== null && field === active);
    if (active === null || active === document.body || ours) focus(latest.current.length);
  });

  // WebOTP: the browser's code, from an SMS bound to this origin, fills the fields and submits. Waited for again after
  // each (a resend's SMS); an abort, a refusal or a browser without it ends the wait, and the fields stay as they are.
  const fromBrowser = useRef<(code: string) => void>(() => undefined);
  fromBrowser.current = (code) => {
    if (disabled !== true) commit(code, true);
  };
  useEffect(() => {
    if (!webOtp || !hasWebOtp()) return;
    const controller = new AbortController();
    void (async () => {
      for (;;) {
        const code = await receiveWebOtp(controller.signal);
        if (code === undefined || controller.signal.aborted) return;
        fromBrowser.current(code);
      }
    })();
    return () => controller.abort();
  }, [webOtp]);

  /**
   * The digits of text pasted or autofilled: an origin-bound message gives its code, or nothing when it is bound
   * to another site (refused, `onForeignCode`); other text gives its digits.
   */
  const codeOf = (text: string): string | undefined => {
    const bound = parseOriginBoundCode(text);
    if (bound === undefined) return text;
    const pageHost = hostProp ?? (typeof location === 'undefined' ? '' : location.hostname);
    if (bound.embeddedHost === undefined && isCodeForHost(bound.host, pageHost)) return bound.code;
    onForeignCode?.(bound);
    return undefined;
  };

  const commit = (next: string, submit = false): void => {
    const clean = digitsOf(next, length);
    const before = latest.current;
    if (clean !== before) {
      latest.current = clean;
      onChange(clean);
    }
    // One submit per completed entry: when the code becomes complete, or on Enter.
    if (clean.length === length && (submit || before.length < length)) onComplete?.(clean);
  };
  const focus = (index: number): void => {
    const field = fields.current[Math.max(0, Math.min(length - 1, index))];
    field?.focus();
    field?.select();
  };
  const common = {
    type: 'text',
    inputMode: 'numeric' as const,
    pattern: '[0-9]*',
    // Every field: the platform offers the code received by SMS in whichever field has focus.
    autoComplete: 'one-time-code',
    maxLength: length,
    disabled,
    'aria-invalid': invalid || undefined,
    'aria-describedby': describedBy,
  };
  const onEnter = (event: KeyboardEvent<HTMLInputElement>): boolean => {
    if (event.key !== 'Enter') return false;
    event.preventDefault();
    if (latest.current.length === length) commit(latest.current, true);
    return true;
  };
  /** A paste, read whole (a field's maxLength would cut a message down to its first characters): its code goes to `put`. */
  const onPaste = (event: ClipboardEvent<HTMLInputElement>, put: (code: string) => void): void => {
    event.preventDefault();
    const code = codeOf(event.clipboardData.getData('text'));
    if (code !== undefined) put(code);
  };

  if (mode === 'single') {
    return (
      <input
        {...common}
        className={className}
        name={name}
        aria-label={label}
        // biome-ignore lint/a11y/noAutofocus: off unless the app asks for it, as when the user has just requested the code and is about to type it.
        autoFocus={autoFocus}
        value={digits}
        onChange={(event) => commit(event.currentTarget.value)}
        onKeyDown={onEnter}
        onPaste={(event) => onPaste(event, commit)}
      />
    );
  }

  /** Text typed, pasted or autofilled into field `index`: written from there on (a whole code: from the start), focus moving past it. */
  const enter = (index: number, text: string): void => {
    const incoming = digitsOf(text);
    if (incoming === '') return;
    const current = latest.current;
    const start = incoming.length >= length ? 0 : Math.min(index, current.length);
    commit(current.slice(0, start) + incoming + current.slice(start + incoming.length));
    focus(start + incoming.length);
  };
  const onKeyDown = (index: number, event: KeyboardEvent<HTMLInputElement>): void => {
    if (onEnter(event)) return;
    const current = latest.current;
    const digit = event.ctrlKey || event.metaKey || event.altKey ? undefined : typedDigit(event.key);
    if (digit !== undefined) {
      // A key pressed: the digit is written here and focus moves on, even over the same digit (no value change, so no change event).
      event.preventDefault();
      enter(index, digit);
      return;
    }
    if (event.key === 'Backspace') {
      event.preventDefault();
      // A digit here goes; on an empty field, the one before it does, and focus moves back.
      const at = index < current.length ? index : index - 1;
      if (at < 0) return;
      commit(current.slice(0, at) + current.slice(at + 1));
      focus(at);
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault();
      focus(index - 1);
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      focus(Math.min(index + 1, current.length));
    }
  };
  const onBeforeInput = (index: number, event: FormEvent<HTMLInputElement>): void => {
    // A digit from a keyboard that names no key (Android's virtual keyboards): as a key pressed.
    const digit = typedDigit((event as unknown as { data?: string | null }).data);
    if (digit === undefined) return;
    event.preventDefault();
    enter(index, digit);
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset brings the browser's border, padding and min-width to an unstyled component; role="group" with aria-label names the fields the same way.
    <div role="group" aria-label={label} className={className}>
      {Array.from({ length }, (_, index) => (
        <input
          {...common}
          // biome-ignore lint/suspicious/noArrayIndexKey: the fields are the code's positions (field N is always digit N), never reordered, added or removed in the middle.
          key={index}
          ref={(element) => {
            fields.current[index] = element;
          }}
          className={inputClassName}
          aria-label={message('verikit.code.digit', { index: index + 1, length })}
          // biome-ignore lint/a11y/noAutofocus: off unless the app asks for it, as when the user has just requested the code and is about to type it.
          autoFocus={autoFocus === true && index === 0}
          value={digits[index] ?? ''}
          onFocus={(event) => {
            // Digits fill from the left: a click past the first empty field lands on it. Selected, a digit typed replaces the one there.
            if (index > latest.current.length) focus(latest.current.length);
            else event.currentTarget.select();
          }}
          onBeforeInput={(event) => onBeforeInput(index, event)}
          onChange={(event) => {
            // What beforeinput did not take: an autofill, a keyboard that sends no text event.
            const typed = digitsOf(event.currentTarget.value);
            const here = latest.current[index];
            // A digit added after the one already here (not selected): only the new one counts.
            const added = typed.length > 1 && typed.length < length && here !== undefined && typed.startsWith(here);
            enter(index, added ? typed.slice(1) : typed);
          }}
          onKeyDown={(event) => onKeyDown(index, event)}
          onPaste={(event) => onPaste(event, (code) => enter(index, code))}
        />
      ))}
      {name === undefined ? null : <input type="hidden" name={name} value={digits} />}
    </div>
  );
}
