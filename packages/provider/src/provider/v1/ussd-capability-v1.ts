import { z } from 'zod';
import { phoneNumberSchema } from '../../schemas.js';
import type { ProviderCallContextV1 } from './provider-call-context-v1.js';

/** Initiate a USSD OTP verification. */
export interface UssdInitiateInputV1 {
  /** E.164, e.g. `+2348012345678`. */
  readonly phoneNumber: string;
}

/** The schema of {@link UssdInitiateInputV1}; unknown fields ignored, as for `smsSendInputSchemaV1`. */
export const ussdInitiateInputSchemaV1 = z.object({
  /** The number to verify, in E.164. */
  phoneNumber: phoneNumberSchema,
}) satisfies z.ZodType<UssdInitiateInputV1>;

/** What the service returns for a USSD initiation: both are shown to the user. */
export interface UssdInitiateResultV1 {
  /** The OTP the user enters after dialling. */
  readonly otp: string;
  /** The USSD code the user dials. */
  readonly ussdCode: string;
  /** The service's id for the verification, for logs and support. */
  readonly reference?: string;
}

/** USSD OTP verification: the result comes later, as a webhook. */
export interface UssdCapabilityV1 {
  /** Starts a USSD verification; the result comes later as a webhook event. */
  initiate(input: UssdInitiateInputV1, context: ProviderCallContextV1): Promise<UssdInitiateResultV1>;
}
