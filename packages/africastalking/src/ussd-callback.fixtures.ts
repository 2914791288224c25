import { InvalidInputError } from '@verikit/provider';
import { createCallbackAllowList, parseUssdSession, ussdResponse, type AfricasTalkingUssdSession } from './index.js';

// docs/providers/africastalking.md shows this file from here to the end; a test runs it against the fake.
// snippet:start
// In production, the addresses Africa's Talking gives you; in development, the fake's 127.0.0.1.
const allowList = createCallbackAllowList((process.env['AFRICASTALKING_CALLBACK_ADDRESSES'] ?? '127.0.0.1').split(','));

/** Your USSD callback: `peer` is the TCP peer's address (e.g. `request.socket.remoteAddress` on node:http). */
export async function ussdCallback(request: Request, peer: string | undefined): Promise<Response> {
  if (request.method !== 'POST' || !allowList.allows(peer)) return new Response(null, { status: 403 });
  let session: AfricasTalkingUssdSession;
  try {
    session = parseUssdSession(await request.text());
  } catch (error) {
    if (InvalidInputError.isInstance(error)) return new Response(null, { status: 400 });
    throw error;
  }
  if (session.text === '') return ussdResponse('CON', 'Reply 1 to confirm this is your number');
  return ussdResponse('END', session.text === '1' ? 'Thank you' : 'Nothing was changed');
}
// snippet:end
