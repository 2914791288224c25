import { useId, useRef, type ClipboardEvent, type KeyboardEvent, type ReactNode } from 'react';

/** Props of {@link OtpInput}. */
export interface OtpInputProps {
  /** The digits entered so far. */
  value: string;
  /** Called with the digits (never anything else) whenever they change. */
  onChange(value: string): void;
  /** Called once the last digit is entered, with the whole code: submit it from here. */
  onComplete?(code: string): void;
  /** Digits in the code. Default 6. */
  length?: number;
  /** One field per digit (`split`, default) or one field for the whole code (`single`). */
  mode?: 'split' | 'single';
  /** The accessible name of the code. Default "Verification code". */
  label?: string;
  /** Marks the code wrong (`aria-invalid`), after the server refused it. */
  invalid?: boolean;
  /** The id of the element describing the code or its error (`aria-describedby`). */
  describedBy?: string;
  /** Disables every field, e.g. while the code is being checked. */
  disabled?: boolean;
  /** Focuses the (first) field on mount: for a page whose only task is the code. */
  autoFocus?: boolean;
  /** A form field name: the code is submitted under it. */
  name?: string;
  /** Class of the wrapper (`split`) or of the field (`single`). */
  className?: string;
  /** Class of each digit field (`split`). */
  inputClassName?: string;
}

function digitsOf(text: string, length: number): string {
  return text.replace(/\D/g, '').slice(0, length);
}

/**
 * A one-time-code input, unstyled. Every field has `autocomplete="one-time-code"` semantics where
 * browsers look for them (the first field), a numeric keyboard (`inputmode="numeric"`) and takes
 * only digits. Pasting or autofilling the whole code into any field fills them all; Backspace on an
 * empty field goes back; arrow keys move. In `split` mode the fields form a labelled group, each
 * named "Digit 2 of 6".
 */
export function OtpInput(props: OtpInputProps): ReactNode {
  const {
    value,
    onChange,
    onComplete,
    length: rawLength = 6,
    mode = 'split',
    label = 'Verification code',
    invalid = false,
    describedBy,
    disabled,
    autoFocus,
    name,
    className,
    inputClassName,
  } = props;
  const length = Math.min(12, Math.max(1, Math.floor(rawLength)));
  const digits = digitsOf(value, length);
  const fields = useRef<Array<HTMLInputElement | null>>([]);
  const groupId = useId();
  // The digits as last committed: focus moves before React renders them, and onFocus must see them.
  const latest = useRef(digits);
  latest.current = digits;

  const commit = (next: string): void => {
    const clean = digitsOf(next, length);
    if (clean === digits) return;
    latest.current = clean;
    onChange(clean);
    if (clean.length === length) onComplete?.(clean);
  };
  const focus = (index: number): void => {
    const field = fields.current[Math.max(0, Math.min(length - 1, index))];
    field?.focus();
    field?.select();
  };
  const common = {
    inputMode: 'numeric' as const,
    pattern: '[0-9]*',
    disabled,
    'aria-invalid': invalid || undefined,
    'aria-describedby': describedBy,
  };

  if (mode === 'single') {
    return (
      <input
        {...common}
        type="text"
        className={className}
        name={name}
        autoComplete="one-time-code"
        aria-label={label}
        // biome-ignore lint/a11y/noAutofocus: off unless the app asks for it, as when the user has just requested the code and is about to type it.
        autoFocus={autoFocus}
        maxLength={length}
        value={digits}
        onChange={(event) => commit(event.currentTarget.value)}
      />
    );
  }

  /** Text typed, pasted or autofilled into field `index`: written from there on, focus moving past it. */
  const enter = (index: number, text: string): void => {
    const incoming = text.replace(/\D/g, '');
    if (incoming === '') return;
    const start = Math.min(index, digits.length);
    const next = digitsOf(digits.slice(0, start) + incoming + digits.slice(start + incoming.length), length);
    commit(next);
    focus(start + incoming.length);
  };
  const onKeyDown = (index: number, event: KeyboardEvent<HTMLInputElement>): void => {
    if (event.key === 'Backspace') {
      event.preventDefault();
      // A digit here goes; on an empty field, the one before it does, and focus moves back.
      const at = index < digits.length ? index : index - 1;
      if (at < 0) return;
      commit(digits.slice(0, at) + digits.slice(at + 1));
      focus(at);
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault();
      focus(index - 1);
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      focus(Math.min(index + 1, digits.length));
    }
  };
  const onPaste = (index: number, event: ClipboardEvent<HTMLInputElement>): void => {
    event.preventDefault();
    enter(index, event.clipboardData.getData('text'));
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset brings the browser's border, padding and min-width to an unstyled component; role="group" with aria-label names the fields the same way.
    <div role="group" aria-label={label} id={groupId} className={className}>
      {Array.from({ length }, (_, index) => (
        <input
          {...common}
          // biome-ignore lint/suspicious/noArrayIndexKey: the fields are the code's positions (field N is always digit N), never reordered, added or removed in the middle.
          key={index}
          ref={(element) => {
            fields.current[index] = element;
          }}
          type="text"
          className={inputClassName}
          autoComplete={index === 0 ? 'one-time-code' : 'off'}
          aria-label={`Digit ${index + 1} of ${length}`}
          // biome-ignore lint/a11y/noAutofocus: off unless the app asks for it, as when the user has just requested the code and is about to type it.
          autoFocus={autoFocus === true && index === 0}
          maxLength={length}
          value={digits[index] ?? ''}
          onFocus={(event) => {
            // Digits fill from the left: a click past the first empty field lands on it. Selected, a digit typed replaces the one there.
            if (index > latest.current.length) focus(latest.current.length);
            else event.currentTarget.select();
          }}
          onChange={(event) => {
            const typed = event.currentTarget.value;
            enter(
              index,
              typed.length > 1 && digits[index] !== undefined && typed.startsWith(digits[index]!)
                ? typed.slice(1)
                : typed,
            );
          }}
          onKeyDown={(event) => onKeyDown(index, event)}
          onPaste={(event) => onPaste(index, event)}
        />
      ))}
      {name === undefined ? null : <input type="hidden" name={name} value={digits} />}
    </div>
  );
}
