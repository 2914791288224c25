import * as provider from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import {
  CapabilityError,
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  RateLimitedError,
  VerikitError,
} from '../index.js';

// An application imports the errors it meets through the engine from @verikit/core alone; they must be the very
// classes providers throw, or `instanceof` would fail on an error from a provider package.
describe('@verikit/core re-exports the provider errors', () => {
  it('as the same classes @verikit/provider exports', () => {
    expect(CapabilityError).toBe(provider.CapabilityError);
    expect(InvalidInputError).toBe(provider.InvalidInputError);
    expect(ProviderAuthenticationError).toBe(provider.ProviderAuthenticationError);
    expect(ProviderProtocolError).toBe(provider.ProviderProtocolError);
    expect(ProviderRejectedError).toBe(provider.ProviderRejectedError);
    expect(ProviderUnavailableError).toBe(provider.ProviderUnavailableError);
    expect(RateLimitedError).toBe(provider.RateLimitedError);
    expect(VerikitError).toBe(provider.VerikitError);
  });
});
