import type { ButtonHTMLAttributes, MouseEvent, ReactNode } from 'react';
import { useMessage } from './flow-client-context.js';
import { useCountdown } from './use-countdown.js';

/** What {@link ResendButton} hands a custom label. */
export interface ResendButtonState {
  /** Whole seconds until a resend is possible; 0 once it is. */
  readonly secondsLeft: number;
  /** True when a click resends now. */
  readonly canResend: boolean;
}

/** The part of `useFlow`'s result the button reads. */
export interface ResendButtonFlow {
  /** The current view: the button is enabled only when `allowed` holds its event. */
  readonly view:
    | {
        /** The user events the flow accepts now. */
        readonly allowed: readonly string[];
      }
    | undefined;
  /** When `resend` becomes allowed, on this device's clock: what the countdown counts to. */
  readonly localResendAvailableAt: number | undefined;
  /** True while an event is being sent: the button waits, so a double click sends once. */
  readonly isSending?: boolean;
  /** Sends `resend`. */
  resend(): unknown;
  /** Sends `restart` (USSD), when the button's `event` is `restart`. */
  restart?(): unknown;
}

/** Props of {@link ResendButton}: the flow, and any attribute of the `button`. */
export interface ResendButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'> {
  /** `useFlow`'s result (or anything with its `view`, `localResendAvailableAt` and `resend`). */
  flow: ResendButtonFlow;
  /** The label; default the catalogue's "Resend code" and, during the cooldown, "Resend code in 0:27". */
  children?: (state: ResendButtonState) => ReactNode;
  /** The language of the default label (`fr`); default the `FlowClientProvider`'s. */
  locale?: string;
  /** The event the button sends: `resend` (phone, BVN/NIN; default) or `restart` (USSD). */
  event?: 'resend' | 'restart';
}

function defaultLabel(message: ReturnType<typeof useMessage>, { secondsLeft }: ResendButtonState): string {
  if (secondsLeft <= 0) return message('verikit.resend.label');
  const time = `${Math.floor(secondsLeft / 60)}:${String(secondsLeft % 60).padStart(2, '0')}`;
  return message('verikit.resend.wait', { time });
}

/**
 * A resend button that counts down the cooldown on the server's clock. While a resend is not
 * possible it stays focusable but `aria-disabled` (a disabled button would vanish from the tab
 * order, hiding the countdown from keyboard and screen-reader users) and ignores clicks. Unstyled.
 */
export function ResendButton({
  flow,
  children,
  locale,
  event = 'resend',
  onClick,
  type = 'button',
  ...rest
}: ResendButtonProps): ReactNode {
  const message = useMessage(locale);
  const left = useCountdown(flow.localResendAvailableAt);
  const secondsLeft = left === undefined ? 0 : Math.ceil(left / 1000);
  const allowed = flow.view?.allowed.includes(event) === true;
  const canResend =
    allowed &&
    secondsLeft === 0 &&
    flow.isSending !== true &&
    (left !== undefined || flow.localResendAvailableAt === undefined);
  const handleClick = (clicked: MouseEvent<HTMLButtonElement>): void => {
    onClick?.(clicked);
    if (clicked.defaultPrevented || !canResend) return;
    if (event === 'restart') flow.restart?.();
    else flow.resend();
  };
  return (
    <button {...rest} type={type} aria-disabled={!canResend} onClick={handleClick}>
      {(children ?? ((state) => defaultLabel(message, state)))({ secondsLeft, canResend })}
    </button>
  );
}
