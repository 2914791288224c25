let next = Math.floor(Math.random() * 10_000_000);

/**
 * A valid Nigerian mobile number in E.164 (`+234806` and 7 digits), different on every call in this
 * process and, from a random start, unlikely to meet another process's numbers: tests that share a
 * Redis or a sandbox use it so that no two flows fight over one number. The `806` range keeps clear
 * of the sandbox's magic numbers and test identities (all `+234803…`), which fail or route on purpose.
 *
 * @example
 * const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
 */
export function freshPhoneNumber(): string {
  next = (next + 1) % 10_000_000;
  return `+234806${String(next).padStart(7, '0')}`;
}
