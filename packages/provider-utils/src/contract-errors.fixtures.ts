import {
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type VerikitError,
} from '@verikit/provider';
import type { ContractFailure } from '@verikit/testing/contract';

/** A registered BVN and NIN for the contract, and where their OTPs go. */
export const contractIdentities = {
  bvn: { number: '22222222222', phoneNumber: '+2348030000101' },
  nin: { number: '11111111111', phoneNumber: '+2348030000103' },
};

/** The test double's scripted error for each contract failure. */
export const contractErrors: Record<ContractFailure, () => VerikitError> = {
  rejected: () => new ProviderRejectedError('refused'),
  unavailable: () => new ProviderUnavailableError('down'),
  authentication: () => new ProviderAuthenticationError(),
  protocol: () => new ProviderProtocolError('no otp', { field: 'data.otp' }),
};

/** A random 6-digit code, so a wrong-code test cannot pass by luck on a fixed one. */
export const randomCode = (): string => String(100000 + Math.floor(Math.random() * 900000));
