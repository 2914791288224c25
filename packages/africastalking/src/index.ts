/**
 * The verikit provider for Africa's Talking: SMS on its messaging API, and the wire formats of what Africa's
 * Talking calls the application with: a USSD session request (`parseUssdSession`, answered with
 * `ussdResponse('CON' | 'END', screen)`) and a delivery report (`parseDeliveryReport`). Africa's Talking signs
 * no callback: `createCallbackAllowList` checks the address one came from. A fake of its API is on the
 * `@verikit/africastalking/fake` subpath.
 *
 * @module \@verikit/africastalking
 */
export { createAfricasTalkingProvider } from './create-africastalking-provider.js';
export type { AfricasTalkingProviderSettings, AfricasTalkingOperation } from './africastalking-settings.js';
export { africasTalkingBaseUrls } from './africastalking-settings-schema.js';
export { africasTalkingPaths } from './africastalking-client.js';
export { africasTalkingRecipientStatus, type AfricasTalkingRecipientStatusCode } from './africastalking-status.js';
export {
  parseUssdSession,
  ussdAnswer,
  ussdResponse,
  readUssdAnswer,
  ussdScreenLimit,
  type AfricasTalkingUssdSession,
  type UssdAnswerKind,
  type UssdAnswer,
} from './ussd-session.js';
/** @public Documented in docs/providers/africastalking.md: reports read on a route of one's own, behind the allow-list. */
export { parseAfricasTalkingDeliveryReport } from './delivery-report.js';
export {
  parseDeliveryReport,
  africasTalkingDeliveryStatuses,
  type AfricasTalkingDeliveryReport,
  type AfricasTalkingDeliveryStatus,
} from './delivery-report.js';
export { createCallbackAllowList, type CallbackAllowList } from './callback-allow-list.js';
