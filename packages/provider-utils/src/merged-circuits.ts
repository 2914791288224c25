import { InvalidInputError, type CircuitChangeV1, type CircuitsV1, type ProviderV1 } from '@verikit/provider';

/** The circuits of a provider whose breakers tell `listeners`: each listener is called in turn, a throw ignored. */
export function ownCircuits(listeners: Set<(change: CircuitChangeV1) => void>): {
  circuits: CircuitsV1;
  tell: (change: CircuitChangeV1) => void;
} {
  return {
    circuits: {
      subscribe(listener) {
        const own = (change: CircuitChangeV1) => listener(change);
        listeners.add(own);
        return () => listeners.delete(own);
      },
    },
    tell(change) {
      for (const listener of [...listeners]) {
        try {
          listener(change);
        } catch {
          // A listener must not change what the breaker does.
        }
      }
    },
  };
}

/**
 * One `circuits` over several (a failover's own and its members', a composition's parts), each source once;
 * undefined when none of them has circuits.
 */
export function mergedCircuits(sources: ReadonlyArray<CircuitsV1 | ProviderV1 | undefined>): CircuitsV1 | undefined {
  const parts = [
    ...new Set(
      sources.flatMap((source) => {
        const circuits = source !== undefined && 'specificationVersion' in source ? source.circuits : source;
        return circuits === undefined ? [] : [circuits];
      }),
    ),
  ];
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  return {
    subscribe(listener) {
      if (typeof listener !== 'function')
        throw new InvalidInputError([{ field: 'listener', message: 'must be a function' }]);
      const stops = parts.map((part) => part.subscribe(listener));
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}
