import {
  type FakePerson,
  defaultFakePeople,
  IdentityFakeState,
  outageAnswer,
  serveFake,
  identityVendorFake,
  type IdentityVendorFake,
} from '@verikit/provider-utils/fake';
import { Hono, type Context } from 'hono';

/** Options of {@link startDojahFake}. */
export interface DojahFakeOptions {
  /** The app id the fake accepts in `AppId`. Default `dojah-fake-app`. */
  readonly appId?: string;
  /** The secret key the fake accepts in `Authorization`. Default `test_sk_dojah-fake-secret-key`. */
  readonly secretKey?: string;
  /**
   * The register it answers from. Default `dojahSandboxPeople`: `defaultFakePeople` of `@verikit/provider-utils/fake`
   * and the test numbers Dojah's docs give for its sandbox.
   */
  readonly people?: readonly FakePerson[];
  /** Port on 127.0.0.1. Default 0: a free one. */
  readonly port?: number;
}

/**
 * A running Dojah fake. Its `charges` are the lookups Dojah would bill: one per answered validation, lookup or
 * selfie verification (a number not found is not billed).
 */
export interface DojahFake extends IdentityVendorFake {
  /** What to pass as `baseUrl`: the server's address (Dojah's paths start with `/api/v1`). */
  readonly baseUrl: string;
  /** The app id it accepts: give it to the provider. */
  readonly appId: string;
  /** The secret key it accepts: give it to the provider. */
  readonly secretKey: string;
}

/**
 * The fake's register unless told otherwise: `defaultFakePeople`, and the test numbers Dojah's docs name for its
 * sandbox (NIN `70123456789`, vNIN `AB012345678910YZ`; its test BVN `22222222222` is already there). Fixture data.
 */
export const dojahSandboxPeople: readonly FakePerson[] = Object.freeze([
  ...defaultFakePeople,
  {
    number: '70123456789',
    firstName: 'John',
    lastName: 'Doe',
    dateOfBirth: '1993-05-06',
    phoneNumber: '+2348123456780',
  },
  {
    number: 'AB012345678910YZ',
    firstName: 'John',
    lastName: 'Alamutu',
    dateOfBirth: '1982-01-01',
    phoneNumber: '+2348012345678',
  },
]);

const months = ['January', 'February', 'March', 'April', 'May', 'June'].concat([
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]);
/** `1991-04-23` as Dojah's BVN records write it: `23-April-1991`. */
const bvnDate = (iso: string) => `${iso.slice(8, 10)}-${months[Number(iso.slice(5, 7)) - 1]}-${iso.slice(0, 4)}`;
/** `1991-04-23` as NIMC's records write it: `23-04-1991`. */
const ninDate = (iso: string) => `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;
/** `+2348031110001` as a national number: `08031110001`. */
const national = (e164: string) => (e164.startsWith('+234') ? `0${e164.slice(4)}` : e164);
/** Letters only, lower case: how the fake compares a claimed name with the record. */
const plain = (text: string) => text.toLowerCase().replace(/[^a-z]+/g, '');
/** A stand-in for the record's photo (a JPEG's first bytes): the fake never holds a real image. */
const photo = '/9j/4AAQSkZJRgABAgAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKD';

/** The record of `person` as each register's lookup answers it (the field names of Dojah's documented examples). */
function lookupEntity(register: 'bvn' | 'nin' | 'vnin', person: FakePerson): Record<string, unknown> {
  if (register === 'bvn')
    return {
      bvn: person.number,
      first_name: person.firstName.toUpperCase(),
      middle_name: '',
      last_name: person.lastName.toUpperCase(),
      date_of_birth: bvnDate(person.dateOfBirth),
      phone_number1: national(person.phoneNumber),
      phone_number2: '',
      gender: 'Female',
      image: photo,
    };
  if (register === 'nin')
    return {
      first_name: person.firstName.toUpperCase(),
      middle_name: '',
      surname: person.lastName.toUpperCase(),
      birth_date: ninDate(person.dateOfBirth),
      telephone: national(person.phoneNumber),
      gender: 'f',
      picture: photo,
    };
  return {
    vnin: person.number,
    firstname: person.firstName,
    middlename: '',
    surname: person.lastName,
    user_id: 'FAKE-0001',
    gender: 'F',
    mobile: national(person.phoneNumber),
    dateOfBirth: person.dateOfBirth,
    photo,
  };
}

/** The record of a selfie verification, as each register's `/verify` answers it (Dojah's documented examples). */
function verifyEntity(register: 'bvn' | 'nin' | 'vnin', person: FakePerson): Record<string, unknown> {
  if (register === 'bvn') return lookupEntity('bvn', person);
  if (register === 'nin')
    return {
      first_name: person.firstName,
      last_name: person.lastName,
      middle_name: '',
      gender: 'F',
      image: photo,
      phone_number: national(person.phoneNumber),
      date_of_birth: person.dateOfBirth,
      nin: person.number,
    };
  return {
    firstname: person.firstName,
    middlename: '',
    surname: person.lastName,
    userid: 'FAKE-0001',
    gender: 'F',
    photo,
    vnin: person.number,
    telephoneno: person.phoneNumber.replace('+', ''),
    birthdate: ninDate(person.dateOfBirth),
  };
}

/** How Dojah says a register holds no such number: `{ "error": "BVN not found" }`. */
const notFound = (c: Context, register: string, status: 400 | 404) =>
  c.json({ error: `${register === 'bvn' ? 'BVN' : register} not found` }, status);

/**
 * Starts a fake of Dojah's Nigeria KYC API on 127.0.0.1: Validate BVN (`GET /api/v1/kyc/bvn`, a `status` and
 * `confidence_value` per claimed field), the lookups (`/api/v1/kyc/bvn/full`, `/nin`, `/vnin`) and the selfie
 * verifications (`POST /api/v1/kyc/{bvn,nin,vnin}/verify`), shaped as Dojah's documented examples
 * (`conformance/docs-examples.json`). It checks the `AppId` and `Authorization` headers and answers from a register
 * (`people`): a number not in it is "not found", a selfie that is not the person's photo is no match. For tests and
 * development.
 *
 * @example
 * const fake = await startDojahFake();
 * const provider = createDojahProvider({ appId: fake.appId, secretKey: fake.secretKey, baseUrl: fake.baseUrl });
 */
export async function startDojahFake(options: DojahFakeOptions = {}): Promise<DojahFake> {
  const appId = options.appId ?? 'dojah-fake-app';
  const secretKey = options.secretKey ?? 'test_sk_dojah-fake-secret-key';
  const state = new IdentityFakeState(options.people ?? dojahSandboxPeople);
  const app = new Hono();

  /** Records the request; an answer when it must be refused (an outage, wrong credentials, a body not JSON). */
  async function refusal(c: Context, body: unknown): Promise<Response | undefined> {
    state.requests.push({ method: c.req.method, path: c.req.path, body, headers: c.req.header() });
    const outage = await outageAnswer(state, c.req.raw.signal);
    if (outage !== undefined) return outage;
    if (c.req.header('appid') !== appId || c.req.header('authorization') !== secretKey)
      return c.json({ error: 'Unauthorized' }, 401);
    return undefined;
  }

  app.get('/api/v1/kyc/bvn', async (c) => {
    const query = c.req.query();
    const refused = await refusal(c, query);
    if (refused !== undefined) return refused;
    const number = query.bvn;
    if (number === undefined || number === '') return c.json({ error: 'bvn is required' }, 400);
    const person = state.people.get(number);
    if (person === undefined) return notFound(c, 'bvn', 400);
    state.charge('match', state.next('dojah-bvn-validation'));
    const verdict = (agrees: boolean) => ({ confidence_value: agrees ? 100 : 0, status: agrees });
    return c.json({
      entity: {
        bvn: { value: number, status: true },
        ...(query.first_name === undefined
          ? {}
          : { first_name: verdict(plain(query.first_name) === plain(person.firstName)) }),
        ...(query.last_name === undefined
          ? {}
          : { last_name: verdict(plain(query.last_name) === plain(person.lastName)) }),
        ...(query.dob === undefined ? {} : { date_of_birth: { status: query.dob === person.dateOfBirth } }),
      },
    });
  });

  for (const [register, path] of [
    ['bvn', '/api/v1/kyc/bvn/full'],
    ['nin', '/api/v1/kyc/nin'],
    ['vnin', '/api/v1/kyc/vnin'],
  ] as const)
    app.get(path, async (c) => {
      const query = c.req.query();
      const refused = await refusal(c, query);
      if (refused !== undefined) return refused;
      const number = query[register];
      if (number === undefined || number === '') return c.json({ error: `${register} is required` }, 400);
      const person = state.people.get(number);
      if (person === undefined) return notFound(c, register, 404);
      state.charge('match', state.next(`dojah-${register}-lookup`));
      return c.json({ entity: lookupEntity(register, person) });
    });

  for (const register of ['bvn', 'nin', 'vnin'] as const)
    app.post(`/api/v1/kyc/${register}/verify`, async (c) => {
      let body: Record<string, unknown>;
      try {
        body = (await c.req.json()) as Record<string, unknown>;
      } catch {
        await refusal(c, undefined);
        return c.json({ error: 'The request body is not JSON' }, 400);
      }
      const refused = await refusal(c, body);
      if (refused !== undefined) return refused;
      const number = body[register];
      const selfie = body.selfie_image;
      if (typeof number !== 'string' || number === '') return c.json({ error: `${register} is required` }, 400);
      if (typeof selfie !== 'string' || selfie === '' || selfie.startsWith('data:'))
        return c.json({ error: 'selfie_image must be the base64 of the image, without data:' }, 400);
      const face = state.faceOf(number, Buffer.from(selfie, 'base64'));
      const person = state.people.get(number);
      if (!face.found || person === undefined) return notFound(c, register, 404);
      const reference = state.next(`dojah-${register}-selfie`);
      state.charge('face', reference);
      return c.json({
        entity: {
          ...verifyEntity(register, person),
          selfie_verification: { confidence_value: face.match ? 99.9 : 0, match: face.match },
          ...(register === 'bvn' ? { selfie_image_url: `https://images.dojah.invalid/${reference}.jpg` } : {}),
        },
      });
    });
  app.notFound((c) => c.json({ error: 'URL not recognized' }, 404));

  const server = await serveFake(app.fetch, options.port ?? 0);
  return { ...identityVendorFake(state, server), baseUrl: server.url, appId, secretKey };
}
