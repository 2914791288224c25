/**
 * Pieces shared by the fakes of provider APIs (`@verikit/gateway/fake`, `@verikit/termii/fake`,
 * `@verikit/twilio/fake`, `@verikit/africastalking/fake`): a server on 127.0.0.1, an outbox and the inbox page
 * that shows it live, latency, the request log. A subpath of its own, so providers that never start a fake do not load hono.
 *
 * @module \@verikit/provider-utils/fake
 */
export { serveFake, type FakeServer } from './serve-fake.js';
export { FakeOutbox, codeInText, type FakeMessage } from './fake-outbox.js';
export { FakeInboxLog, type FakeInboxLogOptions } from './inbox/fake-inbox-log.js';
export { delay, clampLatency, type FakeLatency } from './fake-latency.js';
export { magicNumbers, magicOf } from './magic-numbers.js';
export type {
  FakeInboxDialIn,
  FakeInboxDialInSession,
  FakeInboxSource,
  FakeInboxUssdSession,
  FakeInboxWebhook,
  FakeInboxWebhookAttempt,
} from './inbox/fake-inbox-source.js';
export {
  defaultFakePeople,
  IdentityFakeState,
  identityVendorFake,
  outageAnswer,
  type FakeCharge,
  type FakeFaceVerdict,
  type FakeIdentityRequest,
  type FakeOutage,
  type FakePerson,
  type IdentityVendorFake,
} from './identity-fake.js';
export { runningFake, type RunningFake, type RunningFakeParts } from './running-fake.js';
/** @public For a fake that serves its app by its own means (two servers, as the gateway's): what `serveProviderFake` mounts. */
export { mountFakeBasics } from './fake-parts.js';
export {
  fakeParts,
  serveProviderFake,
  type FakeParts,
  type FakePartsOptions,
  type FakeRequest,
  type ProviderFakeServing,
} from './fake-parts.js';
