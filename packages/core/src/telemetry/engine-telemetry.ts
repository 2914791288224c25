import type { EffectRequest, FlowKind } from '../flows/flow-context.js';
import type { FlowStatus } from '../flows/machines.js';
import type { Telemetry, TelemetryAttributes } from './telemetry.js';

/** The flow ends a verification counts; `cancelled` is the user leaving, not an outcome. */
const endings: ReadonlySet<string> = new Set<FlowStatus>(['verified', 'failed', 'locked', 'expired']);

const flowKinds: ReadonlySet<string> = new Set<FlowKind>(['phone', 'ussd', 'identity', 'dial-in']);

/** What a provider call came to: who answered, and `ok`, `unknown` (no answer in time) or an error code. */
export interface CallOutcome {
  readonly provider: string;
  readonly outcome: string;
}

/**
 * The engine's spans and metrics, named in one place. The engine calls it where it already logs;
 * without a {@link Telemetry} every method runs the work and nothing else.
 */
export class EngineTelemetry {
  readonly #sink: Telemetry | undefined;

  constructor(sink: Telemetry | undefined) {
    this.#sink = sink;
  }

  /** Whether spans and metrics go anywhere: false without a {@link Telemetry}. */
  get reports(): boolean {
    return this.#sink !== undefined;
  }

  /** `verikit.start`: a flow start, its first write and its first provider call. */
  start<T extends { readonly id: string; readonly status: string }>(kind: unknown, work: () => Promise<T>): Promise<T> {
    const sink = this.#sink;
    if (sink === undefined) return work();
    // The kind is read before the input is checked: a value of the caller's own is never an attribute.
    const known = typeof kind === 'string' && flowKinds.has(kind) ? kind : 'invalid';
    return sink.span('verikit.start', { 'verikit.flow.kind': known }, async (annotate) => {
      const view = await work();
      annotate({ 'verikit.flow.id': view.id, 'verikit.flow.status': view.status });
      return view;
    });
  }

  /** A flow was written for the first time. */
  started(kind: string): void {
    this.#sink?.add('verikit.flows.started', { 'verikit.flow.kind': kind });
  }

  /** `verikit.commit`: one committed change of a flow (load, transition, compare-and-set). */
  commit<T extends { readonly loaded: { readonly snapshot: { readonly value: unknown } }; readonly changed: boolean }>(
    flowId: string,
    work: () => Promise<T>,
  ): Promise<T> {
    const sink = this.#sink;
    if (sink === undefined) return work();
    return sink.span('verikit.commit', { 'verikit.flow.id': flowId }, async (annotate) => {
      const committed = await work();
      annotate({
        // The flow's status: the view's, without making it.
        'verikit.flow.status': String(committed.loaded.snapshot.value),
        'verikit.commit.changed': String(committed.changed),
      });
      return committed;
    });
  }

  /** A committed change from `from` to `to`: counts the verification when the flow just ended. */
  changed(kind: string, from: string, to: string): void {
    if (from !== to && endings.has(to))
      this.#sink?.add('verikit.verifications', { 'verikit.flow.kind': kind, 'verikit.outcome': to });
  }

  /**
   * `verikit.provider.call`: one provider call, with its duration and, for a send, the send counted.
   * Its attributes say which capability and channel, never the number or the code it carried.
   */
  providerCall<T>(
    call: {
      readonly flowId: string;
      readonly effect: EffectRequest;
      readonly send: boolean;
      readonly provider: string;
    },
    work: () => Promise<T>,
    outcomeOf: (result: T) => CallOutcome,
  ): Promise<T> {
    const sink = this.#sink;
    if (sink === undefined) return work();
    const [capability = call.effect.kind, operation = ''] = call.effect.kind.split('.');
    // A phone send names its channel; a USSD session is its own; a check or an identity lookup has none.
    const channel = call.effect.input.channel ?? (capability === 'ussd' ? 'ussd' : undefined);
    const attributes: TelemetryAttributes = {
      'verikit.flow.id': call.flowId,
      'verikit.provider': call.provider,
      'verikit.capability': capability,
      'verikit.operation': operation,
      ...(channel === undefined ? {} : { 'verikit.channel': channel }),
    };
    return sink.span('verikit.provider.call', attributes, async (annotate) => {
      const began = performance.now();
      const result = await work();
      const { provider, outcome } = outcomeOf(result);
      const settled = { 'verikit.provider': provider, 'verikit.outcome': outcome };
      annotate(outcome === 'ok' || outcome === 'unknown' ? settled : { ...settled, 'verikit.error.code': outcome });
      sink.record('verikit.provider.duration', (performance.now() - began) / 1000, {
        'verikit.provider': provider,
        'verikit.capability': capability,
        'verikit.operation': operation,
        'verikit.outcome': outcome,
      });
      if (call.send)
        sink.add('verikit.sends', {
          'verikit.provider': provider,
          'verikit.channel': channel ?? capability,
          'verikit.outcome': outcome,
        });
      return result;
    });
  }

  /** `verikit.receive`: one inbound delivery (a webhook), claimed, applied and recorded once. */
  receive<T extends { readonly outcome: string }>(work: () => Promise<T>): Promise<T> {
    const sink = this.#sink;
    if (sink === undefined) return work();
    return sink.span('verikit.receive', {}, async (annotate) => {
      const result = await work();
      annotate({ 'verikit.outcome': result.outcome });
      return result;
    });
  }
}
