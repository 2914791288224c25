/**
 * A value built on its first use rather than when its module is imported. For the schemas a start-up does not
 * need (proofs, provider deliveries, call options, the event webhook's options): `import '@verikit/core'` then builds
 * only the public ones (decision 1362).
 */
export function onFirstUse<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
