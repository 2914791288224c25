/**
 * The provider spec: the versioned interface every provider implements, the typed errors and the
 * input schemas. A third-party provider imports only this entry point.
 *
 * @module
 */
export * from './errors/index.js';
export * from './provider-v1.js';
export * from './schemas.js';
export { silentLogger, type Logger } from './logger.js';
export { maskDigits, safeProviderMessage } from './provider-message.js';
