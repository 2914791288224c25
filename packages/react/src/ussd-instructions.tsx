import type { HTMLAttributes, ReactNode } from 'react';
import { useMessage } from './flow-client-context.js';
import { ussdTelHref } from './tel-href.js';

/** What {@link UssdInstructions} hands a custom renderer. */
export interface UssdInstructionsState {
  /** The code to dial, as the server gave it. */
  readonly ussdCode: string;
  /** The `tel:` link, `#` encoded; undefined when the code is not dialable as given. */
  readonly href: string | undefined;
  /** The OTP to enter when the USSD menu asks. */
  readonly otp: string | undefined;
}

/** Props of {@link UssdInstructions}: the view's `ussdCode` and `otp`, and any attribute of the wrapping `div`. */
export interface UssdInstructionsProps extends Omit<HTMLAttributes<HTMLDivElement>, 'children'> {
  /** The view's `ussdCode`: nothing renders without one. */
  ussdCode: string | undefined;
  /** The view's `otp`. */
  otp?: string | undefined;
  /** Renders the instructions yourself (another layout). */
  children?: (state: UssdInstructionsState) => ReactNode;
  /** The language of the default text (`fr`); default the `FlowClientProvider`'s. */
  locale?: string;
}

/** A message with one part (`{code}`, `{otp}`) rendered as an element. */
function withPart(text: string, placeholder: string, part: ReactNode): ReactNode {
  const at = text.indexOf(placeholder);
  if (at < 0) return text;
  return (
    <>
      {text.slice(0, at)}
      {part}
      {text.slice(at + placeholder.length)}
    </>
  );
}

/**
 * Tells the user to dial the USSD code, as a `tel:` link a phone opens in its dialler (the `#`
 * encoded), and which OTP to enter when the USSD menu asks. Unstyled: pass `className`, or render
 * your own with `children`. Renders nothing without a code.
 */
export function UssdInstructions({ ussdCode, otp, children, locale, ...rest }: UssdInstructionsProps): ReactNode {
  const message = useMessage(locale);
  if (ussdCode === undefined || ussdCode === '') return null;
  const state: UssdInstructionsState = { ussdCode, href: ussdTelHref(ussdCode), otp };
  if (children !== undefined) return <div {...rest}>{children(state)}</div>;
  return (
    <div {...rest}>
      <p>
        {withPart(
          message('verikit.ussd.dial'),
          '{code}',
          state.href === undefined ? <strong>{ussdCode}</strong> : <a href={state.href}>{ussdCode}</a>,
        )}
      </p>
      {otp === undefined ? null : <p>{withPart(message('verikit.ussd.enter'), '{otp}', <strong>{otp}</strong>)}</p>}
    </div>
  );
}
