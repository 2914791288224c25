/** The kinds of flow a server runs. */
export type FlowKind = 'ussd' | 'phone' | 'identity' | 'dial-in';

/** Every status a flow can show. What to render for each is in docs/ui.md. */
export type FlowStatus =
  | 'initiating'
  | 'awaiting-dial'
  | 'awaiting-message'
  | 'sending'
  | 'send-failed'
  | 'awaiting-code'
  | 'awaiting-consent'
  | 'awaiting-selfie'
  | 'checking'
  | 'verified'
  | 'failed'
  | 'expired'
  | 'locked'
  | 'cancelled';

/** The events a user can send to a flow. */
export type FlowEventType = 'submit-code' | 'resend' | 'restart' | 'cancel' | 'consent-given' | 'submit-selfie';

/** An error a flow shows: safe to render, never carries a secret. */
export interface FlowViewError {
  /** Stable and machine-readable, e.g. `send_failed`: branch on it. */
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
  /** The flow id: what `get`, `send` and `observe` take. */
  readonly id: string;
  /** Which flow this is: USSD dial, phone code or BVN/NIN. */
  readonly kind: FlowKind;
  /** Where the flow is: what to render (docs/ui.md). */
  readonly status: FlowStatus;
  /** True when nothing can change the flow any more. */
  readonly done: boolean;
  /** The user events the flow accepts now. */
  readonly allowed: readonly string[];
  /** The phone number, masked: `+234******5678`. */
  readonly phoneNumber?: string;
  /** Phone flows: how the code travels. */
  readonly channel?: 'sms' | 'voice' | 'whatsapp';
  /** Identity flows: which identity number the code was sent for. */
  readonly idType?: 'bvn' | 'nin';
  /** The BVN/NIN, masked: `*******5678`. */
  readonly number?: string;
  /** Identity flows with a ladder: the steps, in order. */
  readonly steps?: readonly ('match' | 'consent' | 'otp' | 'face')[];
  /** Identity flows with a ladder, while not done: the step being climbed. */
  readonly step?: 'match' | 'consent' | 'otp' | 'face';
  /** Identity flows, while consent is awaited: the vendor's page where the user gives it. */
  readonly consentUrl?: string;
  /** Wrong codes still allowed before the flow locks (phone, identity). */
  readonly attemptsLeft?: number;
  /** Wrong codes allowed in all (phone, identity). */
  readonly maxAttempts?: number;
  /** Sends (resends, restarts) the flow may still make; absent once done. */
  readonly sendsLeft?: number;
  /** When `resend` becomes allowed (server clock). */
  readonly resendAvailableAt?: number;
  /** When the code or USSD session stops being valid (server clock). */
  readonly expiresAt?: number;
  /** USSD and dial-in: the code to dial (dial-in: with the flow's one-time reference in it). */
  readonly ussdCode?: string;
  /** USSD only: the OTP to enter after dialling. */
  readonly otp?: string;
  /** Why the flow failed or a send did not go out; absent otherwise. */
  readonly error?: FlowViewError;
  /** The flow's change counter: strictly increasing, so the higher version is the newer state. */
  readonly version: number;
  /** When the flow started (server clock). */
  readonly createdAt: number;
  /** When the flow last changed (server clock). */
  readonly updatedAt: number;
  /**
   * The server's clock when it computed this view. The server sends it in every view; an older server
   * does not, and the client then estimates the clock offset from the `Date` header (docs/ui.md, "Server time").
   */
  readonly serverTime?: number;
}

/** What `start` takes: one of the flow kinds and its fields. */
export type StartFlowInput =
  | {
      /** A USSD flow: the user dials a code and enters the OTP shown. */
      readonly kind: 'ussd';
      /** The user's number in E.164 (`+2348012345678`). */
      readonly phoneNumber: string;
    }
  | {
      /** A phone flow: a code sent by SMS, voice or WhatsApp. */
      readonly kind: 'phone';
      /** The user's number in E.164. */
      readonly phoneNumber: string;
      /** How the code travels. Default `sms`. */
      readonly channel?: 'sms' | 'voice' | 'whatsapp';
      /** The sender ID or number the code comes from, where the provider lets you choose. */
      readonly from?: string;
    }
  | {
      /** A dial-in flow: the user dials the `ussdCode` of the view; the carrier reports which number dialled. */
      readonly kind: 'dial-in';
      /** The number being verified, in E.164. Absent: the flow records which number dialled. */
      readonly phoneNumber?: string;
    }
  | {
      /** An identity flow: a code sent to the number registered for a BVN or NIN. */
      readonly kind: 'identity';
      /** Which identity number `number` is. */
      readonly idType: 'bvn' | 'nin';
      /** The BVN or NIN, 11 digits. */
      readonly number: string;
      /** The ladder of steps (docs/flows.md, "The identity ladder"). Default `['otp']`. */
      readonly steps?: ('match' | 'consent' | 'otp' | 'face')[];
      /** What the user claims, for a `match` step. */
      readonly claims?: {
        /** The first (given) name. */
        readonly firstName?: string;
        /** The last name (surname). */
        readonly lastName?: string;
        /** The date of birth, `YYYY-MM-DD`. */
        readonly dateOfBirth?: string;
        /** The phone number, E.164 or as typed. */
        readonly phoneNumber?: string;
      };
    };

/** What `send` takes: a user event. */
export type FlowEvent =
  | {
      /** Submits the code the user received. */
      readonly type: 'submit-code';
      /** The code as typed. */
      readonly code: string;
    }
  | {
      /** Sends a code again (phone, identity) once the cooldown has passed. */
      readonly type: 'resend';
    }
  | {
      /** Starts a new USSD session (a new code to dial) once the cooldown has passed. */
      readonly type: 'restart';
    }
  | {
      /** Ends the flow; nothing can change it after. */
      readonly type: 'cancel';
    }
  | {
      /** Identity ladder: the user answered the vendor's consent request. */
      readonly type: 'consent-given';
    }
  | {
      /** Identity ladder: the selfie for the face step, JPEG or PNG in base64, at most 2 MiB. */
      readonly type: 'submit-selfie';
      /** The image's base64. */
      readonly image: string;
    };
