import { randomUUID } from 'node:crypto';
import { VerikitError } from '@verikit/provider';

/** An account as the app keeps it: the BVN only as its last four digits. */
export interface Account {
  readonly id: string;
  readonly phoneNumber: string;
  /** The BVN masked (`*******2222`): the app has no use for the full number once it is verified. */
  readonly bvn: string;
  readonly createdAt: number;
}

/** The phone number already has an account. */
class AccountExistsError extends VerikitError {
  constructor() {
    super('account_exists', 'an account with this phone number already exists', { field: 'phoneNumber' });
    this.name = 'AccountExistsError';
  }
}

/** The BVN already has an account. */
class BvnTakenError extends VerikitError {
  constructor() {
    super('account_exists', 'an account with this BVN already exists', { field: 'bvn' });
    this.name = 'BvnTakenError';
  }
}

/**
 * The app's accounts, in memory: the stand-in for the database a real app writes to. One account
 * per phone number and one per BVN (known by the engine's keyed hash of it, never in the clear).
 */
export class AccountStore {
  readonly #byPhone = new Map<string, Account>();
  readonly #bvnHashes = new Set<string>();

  create(input: { phoneNumber: string; bvn: string; bvnHash: string }, now = Date.now()): Account {
    if (this.#byPhone.has(input.phoneNumber)) throw new AccountExistsError();
    if (this.#bvnHashes.has(input.bvnHash)) throw new BvnTakenError();
    this.#bvnHashes.add(input.bvnHash);
    const account: Account = Object.freeze({
      id: randomUUID(),
      phoneNumber: input.phoneNumber,
      bvn: `${'*'.repeat(Math.max(0, input.bvn.length - 4))}${input.bvn.slice(-4)}`,
      createdAt: now,
    });
    this.#byPhone.set(input.phoneNumber, account);
    return account;
  }

  byPhoneNumber(phoneNumber: string): Account | undefined {
    return this.#byPhone.get(phoneNumber);
  }

  get size(): number {
    return this.#byPhone.size;
  }
}
