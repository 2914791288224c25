import { createServer } from 'node:http';
import type { Verikit } from '@verikit/core';
// snippet:start
import { createCallbackAllowList } from '@verikit/africastalking';
import { createDialInHandler, toNodeHandler } from '@verikit/http';

/** Africa's Talking's USSD callback URL points at this server: it answers CON/END in the same exchange. */
export function startDialInServer(verikit: Verikit, callbackAddresses: string[]) {
  const dialIn = createDialInHandler({ verikit, allowList: createCallbackAllowList(callbackAddresses) });
  return createServer(toNodeHandler(dialIn));
}
// snippet:end
