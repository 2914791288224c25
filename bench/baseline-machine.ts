/**
 * The baseline of the engine row: a 5-state machine with guards and an assign, stepped with xstate's
 * bare `transition()` between a JSON parse and a JSON stringify. It is what an application writing its
 * own verification on XState would do per event, with nothing of verikit around it.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// xstate is a dependency of @verikit/core, not of the root: load the copy the engine uses.
const requireFromCore = createRequire(fileURLToPath(new URL('../packages/core/package.json', import.meta.url)));
const xstate = requireFromCore('xstate') as typeof import('../packages/core/node_modules/xstate/dist/xstate.cjs.js');

interface Context {
  attemptsLeft: number;
  codeHash: string;
  expiresAt: number;
  error: string | undefined;
}
type Event = { type: 'sent' } | { type: 'submit-code'; codeHash: string; now: number } | { type: 'cancel' };

/** idle → sending → awaiting-code → verified | locked; a wrong code in `awaiting-code` uses an attempt. */
export function createBaselineMachine(maxAttempts: number) {
  return xstate
    .setup({
      types: {} as { context: Context; events: Event },
      guards: {
        codeMatches: ({ context, event }) =>
          event.type === 'submit-code' && event.codeHash === context.codeHash && event.now < context.expiresAt,
        lastAttempt: ({ context }) => context.attemptsLeft <= 1,
      },
      actions: {
        attemptUsed: xstate.assign(({ context }) => ({
          attemptsLeft: context.attemptsLeft - 1,
          error: 'code_invalid',
        })),
      },
    })
    .createMachine({
      id: 'baseline',
      initial: 'idle',
      context: {
        attemptsLeft: maxAttempts,
        codeHash: 'a'.repeat(32),
        expiresAt: Number.MAX_SAFE_INTEGER,
        error: undefined,
      },
      states: {
        idle: { on: { sent: 'sending' } },
        sending: { on: { sent: 'awaiting-code', cancel: 'locked' } },
        'awaiting-code': {
          on: {
            'submit-code': [
              { guard: 'codeMatches', target: 'verified' },
              { guard: 'lastAttempt', target: 'locked', actions: 'attemptUsed' },
              { actions: 'attemptUsed' },
            ],
            cancel: 'locked',
          },
        },
        verified: { type: 'final' },
        locked: { type: 'final' },
      },
    });
}

type BaselineMachine = ReturnType<typeof createBaselineMachine>;

/** A stored snapshot of the baseline machine in `awaiting-code`, as JSON. */
export function storedBaselineSnapshot(machine: BaselineMachine): string {
  let snapshot = xstate.initialTransition(machine)[0];
  snapshot = xstate.transition(machine, snapshot, { type: 'sent' })[0];
  snapshot = xstate.transition(machine, snapshot, { type: 'sent' })[0];
  return JSON.stringify({ value: snapshot.value, context: snapshot.context });
}

/** One wrong code per stored snapshot, `passes` times over: parse, `transition`, stringify. Returns the number of events. */
export function measureBaselineMachine(machine: BaselineMachine, stored: string[], passes: number): number {
  const wrong = 'f'.repeat(32);
  let events = 0;
  for (let pass = 0; pass < passes; pass += 1) {
    for (let index = 0; index < stored.length; index += 1) {
      const snapshot = machine.resolveState(
        JSON.parse(stored[index]!) as Parameters<BaselineMachine['resolveState']>[0],
      );
      const [next] = xstate.transition(machine, snapshot, { type: 'submit-code', codeHash: wrong, now: 0 });
      if (next === snapshot) throw new Error('the baseline event changed nothing');
      stored[index] = JSON.stringify({ value: next.value, context: next.context });
      events += 1;
    }
  }
  return events;
}
