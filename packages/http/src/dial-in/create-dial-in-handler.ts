import type { Verikit } from '@verikit/core';
import { InvalidInputError, RateLimitedError, defaultLogger, type Logger } from '@verikit/provider';
import { peerAddressOf, readBody } from '../routes/route-request.js';
import { errorCode } from '@verikit/core/internal';

/** What a dial-in route answers the user's handset with, by what became of the dial. */
export interface DialInScreens {
  /** The dial verified (or identified) the flow. */
  readonly verified: string;
  /** The session came without a reference (the bare service code was dialled): asks for it, keeping the session open. */
  readonly askReference: string;
  /** No flow waits for this reference from this number: wrong number, unknown or expired reference, ended flow. */
  readonly notValid: string;
  /** The session was applied before (a replayed request). */
  readonly alreadyUsed: string;
  /** The dial could not be applied now (the store failed, or another instance holds the session). */
  readonly tryAgain: string;
  /** Too many wrong references lately, from this number or in all (the send guard's `wrongReferences*` limits). */
  readonly tooManyTries: string;
}

/** The app a handset's screens name when `appName` is not given. */
const defaultAppName = 'the app';

/**
 * The default screens, naming the app and what is confirmed (a phishing page that hands a victim someone else's
 * reference is then named on the victim's handset): short English, within a USSD screen's 182 characters.
 */
export function dialInScreensFor(appName: string): Readonly<DialInScreens> {
  return Object.freeze({
    verified: `Your number is confirmed for ${appName}. If you did not start this yourself in ${appName}, contact ${appName} now.`,
    askReference: `To confirm this phone number for ${appName}, enter the reference ${appName} shows you:`,
    notValid: `This code is not valid for this number, or it has expired. Start again in ${appName}.`,
    alreadyUsed: 'This code was already used.',
    tryAgain: 'Something went wrong. Please dial the code again in a moment.',
    tooManyTries: `Too many wrong codes. Please wait a few minutes, then start again in ${appName}.`,
  });
}

/** The default screens, without an `appName`: they name "the app". */
export const defaultDialInScreens: Readonly<DialInScreens> = dialInScreensFor(defaultAppName);

/** Options of {@link createDialInHandler}. */
export interface DialInHandlerOptions {
  /** The engine; its provider must have the `dialIn` capability (`ussdServiceCode` on `@verikit/africastalking`). */
  verikit: Verikit;
  /**
   * The carrier's callback addresses (`createCallbackAllowList` of `@verikit/africastalking`): a request from any
   * other address is refused with 403 before its body is read. Required: the session request is not signed.
   */
  allowList: {
    /** True when `address` (the peer's IP address as the socket reports it) is the carrier's. */
    allows(address: string | undefined): boolean;
  };
  /**
   * The address the request came from. Default: the TCP peer the server adapter reports (`toNodeHandler`,
   * `toHonoHandler`). Behind your own proxy, return the address it appends to `X-Forwarded-For`.
   */
  peerAddress?: (request: Request, env: unknown) => string | undefined;
  /**
   * The app's name as its users know it (`'Acme'`), shown on the handset with what the dial confirms: "Your number is
   * confirmed for Acme…". 1 to 30 printable characters. Default: "the app". Give it: a user handed someone
   * else's code then sees whose app they confirmed their number to.
   */
  appName?: string;
  /** The texts shown on the handset (each at most 182 printable characters). Default {@link dialInScreensFor} `appName`. */
  screens?: Partial<DialInScreens>;
  /** Where refusals are logged (never a number or a reference). Default: `defaultLogger`. */
  logger?: Logger;
}

/** A Web-standard dial-in endpoint: never throws, every outcome is a response. */
export type DialInHandler = (request: Request, env?: unknown) => Promise<Response>;

/** The largest session request read: Africa's Talking's fields are short. */
const maxBodyBytes = 4096;

/**
 * Creates the route the carrier calls when a user dials the service code of a dial-in flow (Africa's Talking's
 * USSD callback URL). It answers in the same exchange, as USSD requires: `END <screen>` once the dial is applied
 * (or refused), `CON <screen>` to ask for the reference when only the service code was dialled. The request is
 * checked in this order: method, the peer address against `allowList` (403), the body's type and size, the
 * session (400 when malformed), then `verikit.receive` with the session id as delivery id, so a replayed session
 * changes nothing. Throws an `InvalidInputError` at creation for a missing allow-list, an engine without
 * `dialIn`, or a screen that is not a valid USSD screen.
 *
 * @example
 * const dialIn = createDialInHandler({ verikit, allowList: createCallbackAllowList(['203.0.113.0/24']) });
 * const server = createServer(toNodeHandler(dialIn)); // Africa's Talking's USSD callback URL points here
 */
export function createDialInHandler(options: DialInHandlerOptions): DialInHandler {
  const { verikit, allowList, peerAddress, logger = defaultLogger } = options ?? ({} as DialInHandlerOptions);
  const dialIn = verikit?.dialIn;
  if (dialIn === undefined)
    throw new InvalidInputError([{ field: 'verikit', message: 'must have a provider with the dialIn capability' }]);
  if (typeof allowList?.allows !== 'function')
    throw new InvalidInputError([
      { field: 'allowList', message: "is required: the carrier's session requests are not signed" },
    ]);
  const { appName = defaultAppName } = options;
  if (typeof appName !== 'string' || !/^[\x20-\x7e]{1,30}$/.test(appName.trim()) || appName.trim() !== appName)
    throw new InvalidInputError([{ field: 'appName', message: 'must be 1 to 30 printable characters' }]);
  const screens = { ...dialInScreensFor(appName), ...options.screens };
  // A screen the carrier cannot show is refused now, not on a user's handset.
  for (const [name, screen] of Object.entries(screens)) {
    try {
      dialIn.answer('END', screen);
    } catch {
      throw new InvalidInputError([{ field: `screens.${name}`, message: 'must be a USSD screen (182 characters)' }]);
    }
  }
  const answer = (kind: 'CON' | 'END', screen: string) => {
    const { body, contentType } = dialIn.answer(kind, screen);
    return new Response(body, { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
  };
  const refuse = (status: number) => new Response(null, { status, headers: { 'cache-control': 'no-store' } });

  return async (request, env) => {
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
    const address = peerAddress === undefined ? peerAddressOf(env) : peerAddress(request, env);
    if (!allowList.allows(address)) {
      logger.warn('verikit.dial_in.forbidden', { reason: address === undefined ? 'no-address' : 'not-allowed' });
      return refuse(403);
    }
    const type = request.headers.get('content-type') ?? '';
    if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return refuse(415);
    const read = await readBody(request, maxBodyBytes);
    if (!read.ok) return refuse(read.reason === 'too-large' ? 413 : 400);
    let session: ReturnType<typeof dialIn.parseSession>;
    try {
      session = dialIn.parseSession({ body: read.body, headers: Object.fromEntries(request.headers) });
    } catch (error) {
      if (!InvalidInputError.isInstance(error)) throw error;
      logger.warn('verikit.dial_in.malformed', { field: error.field });
      return refuse(400);
    }
    if (session.text === '') return answer('CON', screens.askReference);
    // One reference per session: what the user typed last is the reference (`*384*1234#`, then `583921`).
    const reference = session.text.split('*').at(-1)!;
    if (!/^[0-9]{1,16}$/.test(reference) || !/^[\x21-\x7e]{1,200}$/.test(session.sessionId))
      return answer('END', screens.notValid);
    try {
      const result = await verikit.receive({
        id: `dial-in:${session.sessionId}`,
        event: { type: 'dial-in', phoneNumber: session.phoneNumber, reference },
      });
      if (result.outcome === 'applied') return answer('END', screens.verified);
      if (result.outcome === 'duplicate') return answer('END', screens.alreadyUsed);
      if (result.outcome === 'no-active-flow') return answer('END', screens.notValid);
      return answer('END', screens.tryAgain);
    } catch (error) {
      // A number the engine does not take (not a mobile number) is no flow's; anything else is ours to fix.
      if (InvalidInputError.isInstance(error)) return answer('END', screens.notValid);
      if (RateLimitedError.isInstance(error)) return answer('END', screens.tooManyTries);
      logger.error('verikit.dial_in.failed', { error: errorCode(error) });
      return answer('END', screens.tryAgain);
    }
  };
}
