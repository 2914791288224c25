import { createRequire } from 'node:module';

/** libphonenumber-js with its full metadata: the API of `libphonenumber-js/max`. */
export type PhoneNumberLibrary = typeof import('libphonenumber-js/max');

let library: PhoneNumberLibrary | undefined;

/**
 * `libphonenumber-js/max` (full metadata: number ranges and types, not only lengths), loaded on the first call
 * rather than when this package is imported: its 93 ES modules were a third of the time `import '@verikit/core'`
 * took, and a process that never reads a number (a worker, a CLI command) need not pay for them. Loaded through
 * `require`, synchronously, so every reader of a number stays synchronous (decision 1220).
 */
export function phoneNumberLibrary(): PhoneNumberLibrary {
  library ??= createRequire(import.meta.url)('libphonenumber-js/max') as PhoneNumberLibrary;
  return library;
}
