export { VerikitError, type VerikitErrorOptions } from './verikit-error.js';
export { InvalidInputError, type InputIssue } from './invalid-input-error.js';
export { CapabilityError } from './capability-error.js';
export { RateLimitedError } from './rate-limited-error.js';
export { ProviderRejectedError } from './provider-rejected-error.js';
export { ProviderUnavailableError, type ProviderUnavailableErrorOptions } from './provider-unavailable-error.js';
export { ProviderAuthenticationError } from './provider-authentication-error.js';
export { ProviderProtocolError } from './provider-protocol-error.js';
export { isProvablyUnsent } from './is-provably-unsent.js';
