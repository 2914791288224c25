import { flowIdPattern } from './parse-view.js';

/** Where the client keeps flow handles: the subset of the Web Storage API it uses (`sessionStorage`, `localStorage`). */
export interface FlowHandleStorage {
  /** The value under `key`, or null. */
  getItem(key: string): string | null;
  /** Keeps `value` under `key`. */
  setItem(key: string, value: string): void;
  /** Drops `key`. */
  removeItem(key: string): void;
}

/** One flow this browser started: its id, its secret, and what it was started for (a hash). */
interface FlowHandle {
  readonly id: string;
  readonly secret: string;
  readonly input?: string;
}

const secretPattern = /^[A-Za-z0-9_-]{43}$/;
/** The most handles kept: enough for a multi-step form, small enough to bound the storage. */
const maxHandles = 8;

/** The platform's storage by name, or undefined where there is none (server-side rendering, a locked-down browser). */
export function platformStorage(name: 'sessionStorage' | 'localStorage'): FlowHandleStorage | undefined {
  try {
    const storage = (globalThis as Record<string, unknown>)[name] as FlowHandleStorage | undefined;
    return storage !== undefined && typeof storage.getItem === 'function' ? storage : undefined;
  } catch {
    // Reading `sessionStorage` throws where storage is blocked.
    return undefined;
  }
}

/** 128 random bits, base64url. */
function randomToken(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The flow handles (id + flow secret) of one client, kept in memory and in `storage` (sessionStorage
 * by default), so a reload resumes a flow instead of starting another; and the browser's owner
 * token (localStorage by default), which lets a second tab join the same live flow. Never in a URL,
 * never in a view.
 */
export class FlowHandles {
  readonly #storage: FlowHandleStorage | undefined;
  readonly #ownerStorage: FlowHandleStorage | undefined;
  readonly #key: string;
  #handles: FlowHandle[] | undefined;
  #owner: string | undefined;

  constructor(baseUrl: string, storage: FlowHandleStorage | undefined, ownerStorage: FlowHandleStorage | undefined) {
    this.#storage = storage;
    this.#ownerStorage = ownerStorage;
    this.#key = `verikit.flows:${baseUrl}`;
  }

  /** The secret of a flow this client started or was given. */
  secretOf(flowId: string): string | undefined {
    return this.#all().find((handle) => handle.id === flowId)?.secret;
  }

  /** The flow this client started for the same input, when it still holds its handle. */
  startedFor(input: string): string | undefined {
    return this.#all().find((handle) => handle.input === input)?.id;
  }

  /** Keeps a handle (the newest first); a malformed secret is not kept. */
  remember(flowId: string, secret: string, input?: string): void {
    if (!secretPattern.test(secret) || !flowIdPattern.test(flowId)) return;
    const rest = this.#all().filter(
      (handle) => handle.id !== flowId && (input === undefined || handle.input !== input),
    );
    this.#save([{ id: flowId, secret, ...(input === undefined ? {} : { input }) }, ...rest].slice(0, maxHandles));
  }

  /** Drops a handle: its flow is done or gone. */
  forget(flowId: string): void {
    this.#save(this.#all().filter((handle) => handle.id !== flowId));
  }

  /** This browser's owner token, made once. */
  owner(): string {
    if (this.#owner !== undefined) return this.#owner;
    let owner: string | null | undefined;
    try {
      owner = this.#ownerStorage?.getItem('verikit.owner');
      if (owner === null || owner === undefined || !/^[A-Za-z0-9_-]{22,128}$/.test(owner)) {
        owner = randomToken();
        this.#ownerStorage?.setItem('verikit.owner', owner);
      }
    } catch {
      owner = randomToken();
    }
    this.#owner = owner;
    return owner;
  }

  #all(): FlowHandle[] {
    if (this.#handles !== undefined) return this.#handles;
    let stored: unknown;
    try {
      stored = JSON.parse(this.#storage?.getItem(this.#key) ?? '[]');
    } catch {
      stored = [];
    }
    this.#handles = (Array.isArray(stored) ? stored : [])
      .filter(
        (handle: Partial<FlowHandle> | null): handle is FlowHandle =>
          typeof handle === 'object' &&
          handle !== null &&
          typeof handle.id === 'string' &&
          flowIdPattern.test(handle.id) &&
          typeof handle.secret === 'string' &&
          secretPattern.test(handle.secret),
      )
      .slice(0, maxHandles);
    return this.#handles;
  }

  #save(handles: FlowHandle[]): void {
    this.#handles = handles;
    try {
      if (handles.length === 0) this.#storage?.removeItem(this.#key);
      else this.#storage?.setItem(this.#key, JSON.stringify(handles));
    } catch {
      // A full or blocked storage: the handles live in memory for this page.
    }
  }
}

/** A hash of a start input (SHA-256, hex), to find its flow again without keeping the number; undefined without Web Crypto. */
export async function inputKey(input: unknown): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(input);
  } catch {
    return undefined;
  }
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A fresh idempotency key for one start (kept across its retries). */
export function newIdempotencyKey(): string {
  return randomToken();
}
