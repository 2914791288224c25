import { InvalidInputError, type InputIssue } from '@verikit/provider';

/**
 * One request of a USSD session, as Africa's Talking POSTs it to the application's callback URL
 * (`application/x-www-form-urlencoded`) when a user dials the service code and at each later answer.
 */
export interface AfricasTalkingUssdSession {
  /** Africa's Talking's id of the session, the same on every request of one session. */
  readonly sessionId: string;
  /** The USSD code registered for the application, e.g. `*384*1234#`. */
  readonly serviceCode: string;
  /** The number that dialled, in E.164, as the mobile network reported it. */
  readonly phoneNumber: string;
  /** The mobile network's code (e.g. `62130` MTN Nigeria), when sent. */
  readonly networkCode?: string;
  /**
   * What the user typed so far, each answer joined by `*`; empty on the first request. Whatever the handset sent
   * (Africa's Talking documents no limit on the characters or the length), so the application judges it and
   * answers with a screen: `.`, `@`, `-`, letters or a long text are the user's input, not a malformed request.
   */
  readonly text: string;
}

const limits = { sessionId: 128, serviceCode: 32, networkCode: 16, text: 4096 } as const;

/** Whether a value read from a form is a string of printable characters within `max`. */
const printable = (value: string, max: number) => value.length <= max && /^[\x20-\x7e]*$/.test(value);
/** The user's text: any characters but control ones (a handset may send letters, symbols, accents). */
const typed = (value: string, max: number) => value.length <= max && !/\p{Cc}/u.test(value);

/**
 * Parses the body of a USSD session request. Returns the session with the phone number in E.164, or throws an
 * `InvalidInputError` naming each missing or malformed field (never quoting the values). The session's own fields
 * are checked strictly; `text`, what the user typed, only for control characters and the body's size, so that any
 * input the user may type reaches the application, which answers it with a screen (a refused request ends the
 * session on the handset with none). A `+` sent unencoded in
 * `phoneNumber` arrives as a space; it is read as the `+` it was.
 *
 * @example
 * const session = parseUssdSession(await request.text());
 * return ussdResponse('END', `Thank you, ${session.phoneNumber}`);
 */
export function parseUssdSession(body: string): AfricasTalkingUssdSession {
  if (typeof body !== 'string' || body.length > 4096)
    throw new InvalidInputError([{ field: 'body', message: 'must be a form body of at most 4096 characters' }]);
  const form = new URLSearchParams(body);
  const issues: InputIssue[] = [];
  const field = (name: keyof typeof limits, required: boolean): string | undefined => {
    const values = form.getAll(name);
    if (values.length > 1) {
      issues.push({ field: name, message: 'must be given once' });
      return undefined;
    }
    const value = values[0];
    if (value === undefined || (required && value.length === 0)) {
      if (required) issues.push({ field: name, message: 'is required' });
      return undefined;
    }
    if (!(name === 'text' ? typed : printable)(value, limits[name])) {
      issues.push({ field: name, message: `must be at most ${limits[name]} printable characters` });
      return undefined;
    }
    return value;
  };
  const sessionId = field('sessionId', true);
  const serviceCode = field('serviceCode', true);
  const networkCode = field('networkCode', false);
  const text = field('text', false) ?? '';
  const rawNumbers = form.getAll('phoneNumber');
  const rawNumber = rawNumbers.length === 1 ? rawNumbers[0]!.trim() : undefined;
  const phoneNumber = rawNumber === undefined ? undefined : rawNumber.startsWith('+') ? rawNumber : `+${rawNumber}`;
  if (phoneNumber === undefined || !/^\+[1-9]\d{6,14}$/.test(phoneNumber))
    issues.push({ field: 'phoneNumber', message: 'must be the dialling number in international format' });
  if (serviceCode !== undefined && !/^[*#0-9]+$/.test(serviceCode))
    issues.push({ field: 'serviceCode', message: 'must be a USSD code of digits, * and #' });
  if (issues.length > 0) throw new InvalidInputError(issues);
  return Object.freeze({
    sessionId: sessionId!,
    serviceCode: serviceCode!,
    phoneNumber: phoneNumber!,
    ...(networkCode === undefined || networkCode.length === 0 ? {} : { networkCode }),
    text,
  });
}

/** How a USSD answer goes on: `CON` keeps the session open for the user's next answer, `END` closes it. */
export type UssdAnswerKind = 'CON' | 'END';

/** The longest screen a USSD answer may carry: networks cut longer ones (182 characters of GSM 7-bit text). */
export const ussdScreenLimit = 182;

/**
 * The text of an answer to a USSD session request: `CON <screen>` or `END <screen>`. Throws an
 * `InvalidInputError` for a screen longer than {@link ussdScreenLimit} or with characters outside printable ASCII
 * and line breaks (telcos do not render others).
 */
export function ussdAnswer(kind: UssdAnswerKind, screen: string): string {
  if (kind !== 'CON' && kind !== 'END') throw new InvalidInputError([{ field: 'kind', message: 'must be CON or END' }]);
  if (typeof screen !== 'string' || screen.length > ussdScreenLimit || !/^[\x20-\x7e\n]*$/.test(screen))
    throw new InvalidInputError([
      { field: 'screen', message: `must be at most ${ussdScreenLimit} printable characters and line breaks` },
    ]);
  return `${kind} ${screen}`;
}

/** The answer as Africa's Talking expects it: HTTP 200, `text/plain`, `CON …` or `END …`. */
export function ussdResponse(kind: UssdAnswerKind, screen: string): Response {
  return new Response(ussdAnswer(kind, screen), {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** An answer to a USSD session request, read back. */
export interface UssdAnswer {
  /** `CON` or `END`. */
  readonly kind: UssdAnswerKind;
  /** The screen after the prefix. */
  readonly screen: string;
}

/** An answer read back (what the fake's dialler and tests see), or `undefined` when it is not `CON …`/`END …`. */
export function readUssdAnswer(text: string): UssdAnswer | undefined {
  const match = /^(CON|END) ([\s\S]*)$/.exec(text);
  return match === null ? undefined : { kind: match[1] as UssdAnswerKind, screen: match[2]! };
}
