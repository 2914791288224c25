import { gatewayEndpoints, gatewayPathPrefixes, type GatewayBase, type GatewayOperation } from '../endpoints.js';
import { z } from 'zod';

// The service's own checks of a request body, as the fake emulates them: looser than verikit's
// (any `+` and 8 to 15 digits is a phone number here), so verikit's stricter checks are what tests see.
const phoneNumber = z
  .string({ error: 'is required' })
  .regex(/^\+\d{8,15}$/, { error: 'must start with + and the country code, digits only, no spaces' });
const text = (max: number) =>
  z
    .string({ error: 'is required' })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });
const digits = (error: string) => z.string({ error }).regex(/^\d{4,10}$/, { error });
const otp = z.union(
  [digits('must be a string of 4 to 10 digits'), z.number().int().min(1000).max(9_999_999_999).transform(String)],
  {
    error: 'must be a string of 4 to 10 digits',
  },
);
const identityNumber = z.string({ error: 'is required' }).regex(/^\d{11}$/, { error: 'must be 11 digits' });

const bodySchemas: Readonly<Record<GatewayOperation, z.ZodType<Record<string, unknown>>>> = {
  'ussd.initiate': z.object({ phoneNumber }),
  'sms.send': z.object({ from: text(16), message: text(1600), to: phoneNumber }),
  'identity.bvn': z.object({ number: identityNumber, otp }),
  'identity.nin': z.object({ number: identityNumber, otp }),
  'phone.send': z.object({
    from: text(16),
    phoneNumber,
    channel: z.enum(['sms', 'voice'], { error: 'must be sms or voice' }).optional(),
  }),
  'phone.check': z.object({
    code: digits('must be a string of 4 to 10 digits'),
    requestId: z.string({ error: 'is required' }).min(1).max(256),
  }),
  'whatsapp.send': z.object({ message: text(4096), phoneNumber }),
};

/** The interface gives no messages for USSD initiation: these two are the fake's own. */
const ussdMessages = {
  successMessage: 'Verification initiated',
  failureMessage: 'Error initiating verification',
} as const;

/** One endpoint as the fake serves it: its base address, its path, its messages and its body schema. */
export interface GatewayFakeEndpoint {
  /** The provider operation the endpoint serves. */
  readonly operation: GatewayOperation;
  /** Which of the fake's two listeners serves it: `ussd` (`ussdBaseUrl`) for USSD initiation, `main` (`baseUrl`) for the rest. */
  readonly base: GatewayBase;
  /** The path the fake serves it at, on its base address only: the base's prefix, then the route. */
  readonly path: string;
  /** The `message` of a success answer, as the service words it. */
  readonly successMessage: string;
  /** The `message` of a refusal, as the service words it. */
  readonly failureMessage: string;
  /** The body the service accepts; anything else is answered as the service answers a bad request. */
  readonly schema: z.ZodType<Record<string, unknown>>;
}

/**
 * The seven endpoints of the service interface (docs/service.md, "The seven endpoints"), from the gateway provider's table
 * (`gatewayEndpoints`, the one table of routes and messages) with the service's body checks added. Each is served
 * where the interface puts it and nowhere else: USSD initiation at `{ussd_base_url}/messagingserv/gateway/api/v1/…`,
 * the others at `{base_url}/gateway/api/v1/…`, the two base addresses being two listeners of the fake.
 */
export const gatewayFakeEndpoints: readonly GatewayFakeEndpoint[] = Object.freeze(
  (Object.keys(gatewayEndpoints) as GatewayOperation[]).map((operation) => {
    const endpoint = gatewayEndpoints[operation];
    return Object.freeze({
      operation,
      base: endpoint.base,
      path: endpoint.path,
      successMessage: endpoint.successMessage ?? ussdMessages.successMessage,
      failureMessage: endpoint.failureMessage ?? ussdMessages.failureMessage,
      schema: bodySchemas[operation],
    });
  }),
);

/** The two path prefixes of the service: USSD initiation's (on `ussdBaseUrl`) and the other endpoints' (on `baseUrl`). */
export const gatewayFakePathPrefixes: readonly string[] = Object.freeze(Object.values(gatewayPathPrefixes));
