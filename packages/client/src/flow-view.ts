/** The kinds of flow a server runs. */
export type FlowKind = 'ussd' | 'phone' | 'identity';

/** Every status a flow can show. What to render for each is in docs/ui.md. */
export type FlowStatus =
  | 'initiating'
  | 'awaiting-dial'
  | 'sending'
  | 'send-failed'
  | 'awaiting-code'
  | 'checking'
  | 'verified'
  | 'failed'
  | 'expired'
  | 'locked'
  | 'cancelled';

/** The events a user can send to a flow. */
export type FlowEventType = 'submit-code' | 'resend' | 'restart' | 'cancel';

/** An error a flow shows: safe to render, never carries a secret. */
export interface FlowViewError {
  readonly code: string;
  /** Developer English; translate `messageId` instead. */
  readonly message: string;
  /** The stable key a product translates (`verikit.error.<code>`; docs/ui.md, "Message ids"). Absent from older servers. */
  readonly messageId?: string;
}

/**
 * What a UI renders, as the server sends it: a plain, serializable object (the server's `FlowView`,
 * written out here so the client needs no server package). Times are milliseconds since the epoch
 * on the server's clock: turn them into local time with the observer's countdowns, never by
 * comparing them with `Date.now()` directly.
 */
export interface FlowView {
  readonly id: string;
  readonly kind: FlowKind;
  readonly status: FlowStatus;
  /** True when nothing can change the flow any more. */
  readonly done: boolean;
  /** The user events the flow accepts now. */
  readonly allowed: readonly string[];
  /** The phone number, masked: `+234******5678`. */
  readonly phoneNumber?: string;
  readonly channel?: 'sms' | 'voice' | 'whatsapp';
  readonly idType?: 'bvn' | 'nin';
  /** The BVN/NIN, masked: `*******5678`. */
  readonly number?: string;
  readonly attemptsLeft?: number;
  /** Wrong codes allowed in all (phone, identity). */
  readonly maxAttempts?: number;
  /** Sends (resends, restarts) the flow may still make; absent once done. */
  readonly sendsLeft?: number;
  /** When `resend` becomes allowed (server clock). */
  readonly resendAvailableAt?: number;
  /** When the code or USSD session stops being valid (server clock). */
  readonly expiresAt?: number;
  /** USSD only: the code to dial. */
  readonly ussdCode?: string;
  /** USSD only: the OTP to enter after dialling. */
  readonly otp?: string;
  readonly error?: FlowViewError;
  /** The flow's change counter: strictly increasing, so the higher version is the newer state. */
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /**
   * The server's clock when it computed this view. The server sends it in every view; an older server
   * does not, and the client then estimates the clock offset from the `Date` header (docs/ui.md, "Server time").
   */
  readonly serverTime?: number;
}

/** What `start` takes: one of the three flow kinds and its fields. */
export type StartFlowInput =
  | { readonly kind: 'ussd'; readonly phoneNumber: string }
  | { readonly kind: 'phone'; readonly phoneNumber: string; readonly channel?: 'sms' | 'voice' | 'whatsapp'; readonly from?: string }
  | { readonly kind: 'identity'; readonly idType: 'bvn' | 'nin'; readonly number: string };

/** What `send` takes: a user event. */
export type FlowEvent =
  | { readonly type: 'submit-code'; readonly code: string }
  | { readonly type: 'resend' }
  | { readonly type: 'restart' }
  | { readonly type: 'cancel' };
