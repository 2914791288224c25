/**
 * What the fakes of identity vendors share (`@verikit/smile-id/fake`, `@verikit/qoreid/fake`): the register they
 * answer from, an outage switch, and the log of charged lookups and of requests. Scripted outcomes come from the
 * register: a claim that differs is a partial match, a number not in it is "no record", a selfie that is not the
 * person's is a face mismatch, one holding the bytes `SPOOF` fails liveness; `outage` makes every request fail.
 */

/** A person in a fake register. Test data only: never a real identity. */
export interface FakePerson {
  /** The BVN, NIN or vNIN the person is found by. */
  readonly number: string;
  /** The first name on the record. */
  readonly firstName: string;
  /** The last name on the record. */
  readonly lastName: string;
  /** `YYYY-MM-DD`. */
  readonly dateOfBirth: string;
  /** E.164. */
  readonly phoneNumber: string;
  /** The photo a selfie must equal (byte for byte) to match; absent: any selfie matches. */
  readonly face?: Uint8Array;
  /** Whether the vendor has a consent from this person: `refused` refuses, `pending` never answers. Default `granted`. */
  readonly consent?: 'granted' | 'refused' | 'pending';
}

/**
 * How a fake fails every request: an HTTP status, or `hang` (it never answers: a timeout after the send). `424` is
 * Dojah's Failed Dependency (the register behind the vendor failed).
 */
export type FakeOutage = 424 | 500 | 502 | 503 | 504 | 'hang';

/** A lookup the vendor would bill: the step and the vendor's reference. */
export interface FakeCharge {
  /** The identity step the lookup served. */
  readonly step: 'match' | 'consent' | 'face';
  /** The vendor's reference of the lookup (its job id). */
  readonly reference: string;
}

/** A request the fake received, as it came (identity data included: the fake is for tests only). */
export interface FakeIdentityRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The JSON body, or for an upload the files of its zip (`info.json` parsed). */
  readonly body: unknown;
  /** The request's headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A fake's verdict on a selfie. */
export interface FakeFaceVerdict {
  /** The number is in the register. */
  readonly found: boolean;
  /** The selfie is the person's (or the person has no photo). */
  readonly match: boolean;
  /** The selfie does not hold the bytes `SPOOF`. */
  readonly live: boolean;
}

/** The fake's register, switches and logs. */
export class IdentityFakeState {
  /** The register, by number. */
  readonly people = new Map<string, FakePerson>();
  /** The lookups the vendor would bill, oldest first. */
  readonly charges: FakeCharge[] = [];
  /** The requests received, oldest first. */
  readonly requests: FakeIdentityRequest[] = [];
  /** How every request fails, while set. */
  outage: FakeOutage | undefined;
  #sequence = 0;

  constructor(people: readonly FakePerson[]) {
    for (const person of people) this.people.set(person.number, person);
  }

  /** A fresh reference: `<prefix>-<n>`. */
  next(prefix: string): string {
    this.#sequence += 1;
    return `${prefix}-${this.#sequence}`;
  }

  /** Records a billed lookup. */
  charge(step: FakeCharge['step'], reference: string): void {
    this.charges.push({ step, reference });
  }

  /** The face verdict for a selfie of `number`'s person: found, match, live. */
  faceOf(number: string, image: Uint8Array): FakeFaceVerdict {
    const person = this.people.get(number);
    const live = !Buffer.from(image).includes('SPOOF');
    if (person === undefined) return { found: false, match: false, live };
    const match = person.face === undefined || Buffer.from(person.face).equals(Buffer.from(image));
    return { found: true, match, live };
  }

  /** Forgets the logs and the outage (the register stays). */
  reset(): void {
    this.charges.length = 0;
    this.requests.length = 0;
    this.outage = undefined;
  }
}

/**
 * The people every identity fake knows unless told otherwise: fixture data (the numbers are the vendors' documented
 * sandbox style, 11 digits, never real).
 */
export const defaultFakePeople: readonly FakePerson[] = Object.freeze([
  {
    number: '22222222222',
    firstName: 'Adaeze',
    lastName: 'Okonkwo',
    dateOfBirth: '1991-04-23',
    phoneNumber: '+2348031110001',
  },
  {
    number: '11111111111',
    firstName: 'Tunde',
    lastName: 'Bakare',
    dateOfBirth: '1985-11-02',
    phoneNumber: '+2348031110002',
  },
  {
    number: 'YV111111111111FY',
    firstName: 'Ngozi',
    lastName: 'Eze',
    dateOfBirth: '1979-06-30',
    phoneNumber: '+2348031110003',
  },
  {
    number: '33333333333',
    firstName: 'Musa',
    lastName: 'Danjuma',
    dateOfBirth: '2000-01-15',
    phoneNumber: '+2348031110004',
    consent: 'refused',
  },
]);

/** What every identity vendor's fake offers a test: its address, its logs and its switches. */
export interface IdentityVendorFake {
  /** The server's address. */
  readonly url: string;
  /** The lookups the vendor would bill, oldest first. */
  readonly charges: readonly FakeCharge[];
  /** The requests received, as they came (test data only). */
  readonly requests: readonly FakeIdentityRequest[];
  /** Makes every request fail this way until set back to undefined. */
  setOutage(outage: FakeOutage | undefined): void;
  /** Forgets charges, requests and the outage. */
  reset(): void;
  /** Stops the server. */
  close(): Promise<void>;
}

/** The {@link IdentityVendorFake} part of a running fake: `state`'s logs and switches, `server`'s address and stop. */
export function identityVendorFake(
  state: IdentityFakeState,
  server: { readonly url: string; close(): Promise<void> },
  onReset: () => void = () => {},
): IdentityVendorFake {
  return {
    url: server.url,
    charges: state.charges,
    requests: state.requests,
    setOutage(outage) {
      state.outage = outage;
    },
    reset() {
      state.reset();
      onReset();
    },
    close: () => server.close(),
  };
}

/** What a fake answers while its outage switch is on, or undefined to answer normally. */
export async function outageAnswer(state: IdentityFakeState, signal: AbortSignal): Promise<Response | undefined> {
  const outage = state.outage;
  if (outage === undefined) return undefined;
  if (outage === 'hang') {
    // Never answers: the caller's deadline ends it (a request that reached the vendor, outcome unknown).
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    return new Response(null, { status: 499 });
  }
  return Response.json({ error: 'the service is unavailable' }, { status: outage });
}
