import { ProviderProtocolError, ProviderUnavailableError, type ProviderCallContextV1 } from '@verikit/provider';
import { createHttpClient, readJsonAnswer } from '@verikit/provider-utils';
import type { DojahOperation } from './dojah-settings.js';
import type { ResolvedDojahSettings } from './dojah-settings-schema.js';

/** Dojah's paths, as its API docs (docs.dojah.io, Nigeria KYC) name them: `conformance/README.md`. */
export const dojahPaths = {
  /** Validate BVN: `GET`, the BVN and the claimed names and date of birth in the query; per-field `status`. */
  validateBvn: '/api/v1/kyc/bvn',
  /** Lookup BVN (the record): `GET ?bvn=`, read when a phone number is claimed (Validate BVN takes none). */
  lookupBvn: '/api/v1/kyc/bvn/full',
  /** Lookup NIN (the record): `GET ?nin=`. */
  lookupNin: '/api/v1/kyc/nin',
  /** Lookup vNIN (the record): `GET ?vnin=`. */
  lookupVnin: '/api/v1/kyc/vnin',
  /** BVN with a selfie: `POST { bvn, selfie_image }`; `entity.selfie_verification.match`. */
  verifyBvnSelfie: '/api/v1/kyc/bvn/verify',
  /** NIN with a selfie: `POST { nin, selfie_image }`. */
  verifyNinSelfie: '/api/v1/kyc/nin/verify',
  /** vNIN with a selfie: `POST { vnin, selfie_image }`. */
  verifyVninSelfie: '/api/v1/kyc/vnin/verify',
} as const;

/** What Dojah answered: the record's `entity`, or no record for the number. */
type DojahAnswer =
  | { readonly found: true; readonly entity: Readonly<Record<string, unknown>> }
  | { readonly found: false };

/** One request to Dojah: a `GET` with its query, or a `POST` of a JSON body. */
export interface DojahRequest {
  /** The operation, for logs and errors. */
  readonly operation: DojahOperation;
  /** One of {@link dojahPaths}. */
  readonly path: string;
  /** The query of a `GET`: added to the URL at the last moment, never logged. */
  readonly query?: Readonly<Record<string, string>>;
  /** The JSON body of a `POST`. */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Values Dojah's error messages must never echo (the number, the claims): replaced before a message is kept. */
  readonly secrets: readonly string[];
}

/** Dojah's error answers name what failed in `error` (`{"error": "BVN not found"}`). */
const notFound = /not found|no record/i;

/** Calls Dojah with the `AppId` and `Authorization` headers added at the last moment. */
export interface DojahClient {
  /** The record's `entity`, `found: false` for a 400/404 that says the number is not found, else a typed error. */
  call(request: DojahRequest, context: ProviderCallContextV1): Promise<DojahAnswer>;
}

/** Creates the Dojah client on the shared HTTP client of `@verikit/provider-utils`. */
export function createDojahClient(settings: ResolvedDojahSettings): DojahClient {
  const http = createHttpClient<DojahOperation>({ ...settings });
  return {
    async call(request, context) {
      const { operation, path } = request;
      const label = `${settings.name} ${operation}`;
      const appId = settings.appId();
      const secretKey = settings.secretKey();
      const answer = await http.send(
        {
          operation,
          url: settings.baseUrl() + path,
          path,
          ...(request.query === undefined
            ? { body: JSON.stringify(request.body ?? {}) }
            : { method: 'GET' as const, query: request.query }),
          authorize(headers, body) {
            headers['appid'] = appId;
            headers['authorization'] = secretKey;
            return body;
          },
        },
        context,
      );
      const read = readJsonAnswer(
        { logger: context.logger, provider: settings.name, operation, answer },
        {
          message: (body) => (typeof body?.['error'] === 'string' ? body['error'] : undefined),
          secrets: [secretKey, ...request.secrets],
          refused: ({ status, message }) => {
            if ((status === 400 || status === 404) && message !== undefined && notFound.test(message))
              return { result: undefined };
            // 424 Failed Dependency: the register behind Dojah (NIBSS, NIMC) failed. The request reached Dojah, and
            // whether it billed is not documented, so it is maybe sent: a composition does not ask another vendor.
            if (status === 424)
              return new ProviderUnavailableError(
                `${label}: the register behind Dojah failed (HTTP 424)${message === undefined ? '' : `: ${message}`}`,
                { requestSent: true, maybeSent: true },
              );
            return undefined;
          },
        },
      );
      if (read === undefined) return { found: false };
      const entity = read['entity'];
      if (typeof entity !== 'object' || entity === null || Array.isArray(entity))
        throw new ProviderProtocolError(`${label}: the response has no entity`, { field: 'entity' });
      return { found: true, entity: entity as Record<string, unknown> };
    },
  };
}
