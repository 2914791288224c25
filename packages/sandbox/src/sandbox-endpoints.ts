import { z } from 'zod';

/** The service operations the sandbox emulates. */
export type SandboxOperation = 'ussd.initiate' | 'sms.send' | 'identity.bvn' | 'identity.nin' | 'phone.send' | 'phone.check' | 'whatsapp.send';

const phoneNumber = z
  .string({ error: 'is required' })
  .regex(/^\+\d{8,15}$/, { error: 'must start with + and the country code, digits only, no spaces' });
const text = (max: number) => z.string({ error: 'is required' }).min(1, { error: 'must not be empty' }).max(max, { error: `must be at most ${max} characters` });
const digits = (error: string) => z.string({ error }).regex(/^\d{4,10}$/, { error });
const otp = z.union([digits('must be a string of 4 to 10 digits'), z.number().int().min(1000).max(9_999_999_999).transform(String)], {
  error: 'must be a string of 4 to 10 digits',
});

/** One endpoint: its path after the `/gateway/api/v1` prefix, its messages and its body schema. */
export interface SandboxEndpoint {
  readonly operation: SandboxOperation;
  readonly path: string;
  readonly successMessage: string;
  readonly failureMessage: string;
  readonly schema: z.ZodType<Record<string, unknown>>;
}

/** The seven endpoints of the service interface (spec §4); each is served under both path prefixes. */
export const sandboxEndpoints: readonly SandboxEndpoint[] = Object.freeze([
  {
    operation: 'ussd.initiate',
    path: '/ussd/initiate-verification',
    successMessage: 'Verification initiated',
    failureMessage: 'Error initiating verification',
    schema: z.object({ phoneNumber }),
  },
  {
    operation: 'sms.send',
    path: '/send/sms',
    successMessage: 'Message sent',
    failureMessage: 'Error sending message',
    schema: z.object({ from: text(16), message: text(1600), to: phoneNumber }),
  },
  {
    operation: 'identity.bvn',
    path: '/verify/bvn',
    successMessage: 'OTP sent',
    failureMessage: 'Error sending OTP',
    schema: z.object({ number: z.string({ error: 'is required' }).regex(/^\d{11}$/, { error: 'must be 11 digits' }), otp }),
  },
  {
    operation: 'identity.nin',
    path: '/verify/nin',
    successMessage: 'OTP sent',
    failureMessage: 'Error sending OTP',
    schema: z.object({ number: z.string({ error: 'is required' }).regex(/^\d{11}$/, { error: 'must be 11 digits' }), otp }),
  },
  {
    operation: 'phone.send',
    path: '/verify/phoneNumber',
    successMessage: 'Request Succesful',
    failureMessage: 'Error sending OTP',
    schema: z.object({ from: text(16), phoneNumber, channel: z.enum(['sms', 'voice'], { error: 'must be sms or voice' }).optional() }),
  },
  {
    operation: 'phone.check',
    path: '/verify/phoneCheck',
    successMessage: 'Request Succesful',
    failureMessage: 'Error sending OTP',
    schema: z.object({ code: digits('must be a string of 4 to 10 digits'), requestId: z.string({ error: 'is required' }).min(1).max(256) }),
  },
  {
    operation: 'whatsapp.send',
    path: '/send/whatsapp',
    successMessage: 'Message sent',
    failureMessage: 'Error sending message',
    schema: z.object({ message: text(4096), phoneNumber }),
  },
]);

/** The two path prefixes every endpoint is served under. */
export const sandboxPathPrefixes: readonly string[] = Object.freeze(['/messagingserv/gateway/api/v1', '/gateway/api/v1']);
