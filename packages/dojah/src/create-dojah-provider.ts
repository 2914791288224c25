import {
  ProviderProtocolError,
  type IdentityClaimField,
  type IdentityClaimsV1,
  type IdentityFaceInputV1,
  type IdentityFaceResultV1,
  type IdentityMatchInputV1,
  type IdentityMatchResultV1,
  type IdentityStepsCapabilityV1,
  type ProviderCallContextV1,
  type ProviderV1,
} from '@verikit/provider';
import { compareClaims, isVirtualNin, readIdentityStepInput, readSelfie } from '@verikit/provider-utils';
import { createDojahClient, dojahPaths, type DojahRequest } from './dojah-client.js';
import type { DojahProviderSettings } from './dojah-settings.js';
import { resolveDojahSettings } from './dojah-settings-schema.js';

/** Which register a number is looked up in, and the query or body field Dojah names it by. */
function registerOf(idType: 'bvn' | 'nin', number: string): 'bvn' | 'nin' | 'vnin' {
  if (idType === 'bvn') return 'bvn';
  return isVirtualNin(number) ? 'vnin' : 'nin';
}

/** Every claim made, as Dojah's Validate BVN names them; a claim left out is not sent. */
function validateQuery(number: string, claims: IdentityClaimsV1): Record<string, string> {
  return {
    bvn: number,
    ...(claims.firstName === undefined ? {} : { first_name: claims.firstName }),
    ...(claims.lastName === undefined ? {} : { last_name: claims.lastName }),
    ...(claims.dateOfBirth === undefined ? {} : { dob: claims.dateOfBirth }),
  };
}

/** Validate BVN's per-field verdicts (`{ status: boolean, confidence_value }`), for the claims made. */
function validatedFields(
  claims: IdentityClaimsV1,
  entity: Readonly<Record<string, unknown>>,
): Partial<Record<IdentityClaimField, boolean>> {
  const status = (...keys: string[]) =>
    keys.some((key) => (entity[key] as { status?: unknown } | undefined)?.status === true);
  const fields: Partial<Record<IdentityClaimField, boolean>> = {};
  if (claims.firstName !== undefined) fields.firstName = status('first_name');
  if (claims.lastName !== undefined) fields.lastName = status('last_name');
  // The API reference answers the date as `date_of_birth`; the query names it `dob`: either is read.
  if (claims.dateOfBirth !== undefined) fields.dateOfBirth = status('date_of_birth', 'dob');
  return fields;
}

/**
 * The parts of a record Dojah's lookups answer with, whatever the register calls them: BVN (`first_name`,
 * `last_name`, `date_of_birth`, `phone_number1`), NIN (`first_name`, `surname`, `birth_date`, `telephone`) and vNIN
 * (`firstname`, `surname`, `dateOfBirth`, `mobile`).
 */
function recordParts(entity: Readonly<Record<string, unknown>>) {
  const pick = (...keys: string[]) => keys.map((key) => entity[key]);
  return {
    names: pick('first_name', 'firstname', 'middle_name', 'middlename', 'last_name', 'lastname', 'surname'),
    dateOfBirth: pick('date_of_birth', 'birth_date', 'birthdate', 'dateOfBirth').find(
      (value) => typeof value === 'string',
    ),
    phones: pick('phone_number', 'phone_number1', 'phone_number2', 'telephone', 'telephoneno', 'mobile'),
  };
}

/**
 * Creates the Dojah provider: the identity ladder's `match` and `face` on BVN, NIN and vNIN.
 *
 * - **match**: a BVN by Validate BVN (`GET /api/v1/kyc/bvn` with the claimed names and date of birth: Dojah compares
 *   them and answers a `status` per field, so the record never reaches verikit); with a phone number claimed, which
 *   Validate BVN does not take, and for a NIN or vNIN, by the register's lookup, the record compared here with what
 *   the user claims. Only booleans leave the provider.
 * - **face**: the selfie (base64) with the number to Dojah's selfie verification of that register
 *   (`/api/v1/kyc/{bvn,nin,vnin}/verify`): `entity.selfie_verification.match`. Dojah gives no liveness verdict there.
 *
 * No OTP, no consent step, no messaging: those capabilities are absent. Every setting may come from the environment
 * (`DOJAH_APP_ID`, `DOJAH_SECRET_KEY`, `DOJAH_BASE_URL`), read at each call. Bad settings throw an
 * `InvalidInputError` naming the setting.
 *
 * @example
 * const provider = createDojahProvider({ baseUrl: 'https://sandbox.dojah.io' });
 */
export function createDojahProvider(settings: DojahProviderSettings = {}): ProviderV1 {
  const resolved = resolveDojahSettings(settings);
  const client = createDojahClient(resolved);
  const name = resolved.name;

  async function match(input: IdentityMatchInputV1, context: ProviderCallContextV1): Promise<IdentityMatchResultV1> {
    const { idType, number, claims } = readIdentityStepInput(input);
    const register = registerOf(idType, number);
    const secrets = [number, ...Object.values(claims).filter((value): value is string => typeof value === 'string')];
    const operation = 'identitySteps.match';
    if (register === 'bvn' && claims.phoneNumber === undefined) {
      const answer = await client.call(
        { operation, path: dojahPaths.validateBvn, query: validateQuery(number, claims), secrets },
        context,
      );
      if (!answer.found || (answer.entity.bvn as { status?: unknown } | undefined)?.status === false)
        return { found: false, fields: {} };
      return { found: true, fields: validatedFields(claims, answer.entity) };
    }
    const lookup: Record<typeof register, DojahRequest['path']> = {
      bvn: dojahPaths.lookupBvn,
      nin: dojahPaths.lookupNin,
      vnin: dojahPaths.lookupVnin,
    };
    const answer = await client.call(
      { operation, path: lookup[register], query: { [register]: number }, secrets },
      context,
    );
    if (!answer.found) return { found: false, fields: {} };
    return { found: true, fields: compareClaims(claims, recordParts(answer.entity)) };
  }

  async function face(input: IdentityFaceInputV1, context: ProviderCallContextV1): Promise<IdentityFaceResultV1> {
    const { idType, number } = readIdentityStepInput(input);
    const image = readSelfie(input);
    const register = registerOf(idType, number);
    const path = {
      bvn: dojahPaths.verifyBvnSelfie,
      nin: dojahPaths.verifyNinSelfie,
      vnin: dojahPaths.verifyVninSelfie,
    };
    // The base64 alone, without a `data:` prefix, as Dojah asks.
    const body = { [register]: number, selfie_image: Buffer.from(image).toString('base64') };
    const answer = await client.call(
      { operation: 'identitySteps.face', path: path[register], body, secrets: [number] },
      context,
    );
    if (!answer.found) return { found: false, match: false };
    const verdict = answer.entity.selfie_verification as { match?: unknown } | undefined;
    if (typeof verdict?.match !== 'boolean')
      throw new ProviderProtocolError(`${name} identitySteps.face: the response has no selfie_verification.match`, {
        field: 'selfie_verification.match',
      });
    return { found: true, match: verdict.match };
  }

  const identitySteps: IdentityStepsCapabilityV1 = {
    types: Object.freeze(['bvn', 'nin'] as const),
    virtualNin: true,
    matchFields: Object.freeze(['firstName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const),
    match,
    face,
  };
  return Object.freeze({ specificationVersion: 'v1', name, identitySteps: Object.freeze(identitySteps) });
}
