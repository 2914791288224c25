/**
 * The provider spec: the versioned interface every provider implements, the errors a provider
 * throws, the input schemas and the logger type. A third-party provider imports only this package;
 * it depends on zod and libphonenumber-js and nothing else.
 *
 * @module
 */
export * from './errors/index.js';
export * from './provider/v1/index.js';
export * from './schemas.js';
/** @public The message ids of a refused phone number, for a UI's message catalogue (docs/ui.md). */
export {
  phoneNumberMessageId,
  phoneNumberMessageIds,
  phoneNumberReader,
  readPhoneNumber,
  type PhoneNumberProblem,
  type PhoneNumberReader,
  type PhoneNumberReading,
  type PhoneNumberRules,
  type PhoneNumberUse,
} from './phone-number.js';
/** @public libphonenumber-js/max, loaded on first use: what every number is read with. */
export { phoneNumberLibrary, type PhoneNumberLibrary } from './phone-number.js';
export { defaultLogger, silentLogger, type Logger } from './logger.js';
export { pinoLogger, type PinoLike } from './pino-logger.js';
export { maskDigits, safeProviderMessage } from './provider-message.js';
