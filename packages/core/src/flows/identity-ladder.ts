import { and } from 'xstate';
import type { IdentityStep } from '@verikit/provider';
import type { EffectKind, EffectSucceededEvent, FlowContextBase, FlowError } from './flow-context.js';

// The identity ladder (docs/flows.md, "The identity ladder"): the steps an identity flow climbs in the app's order,
// what a passed step leaves in the context (booleans and who answered, never the data), and the transitions from
// one step to the next. The identity machine spreads these into its own setup.

/** A step the flow passed, as the proof records it: which, who answered, and booleans only. */
export interface PassedStep {
  /** Which step. */
  readonly step: IdentityStep;
  /** The provider that answered (a failover's member). */
  readonly by?: string;
  /** For `match`: one boolean per claim compared. */
  readonly fields?: Readonly<Record<string, boolean>>;
  /** For `face`: the vendor's liveness verdict, where it gave one. */
  readonly live?: boolean;
}

/** What the ladder keeps in an identity flow's context. */
export interface LadderContext extends FlowContextBase {
  /** The ladder; absent in a flow stored before ladders: `['otp']`. */
  readonly steps?: readonly IdentityStep[];
  /** The index in `steps` of the step being climbed. */
  readonly stepIndex?: number;
  /** The steps passed so far, in order. */
  readonly passed?: readonly PassedStep[];
  /** The page where the user gives consent (the vendor's), while the consent step waits for them. */
  readonly consentUrl?: string;
  /** The vendor's reference of the consent request. */
  readonly consentReference?: string;
}

/** The effect each step (but the OTP's send) runs first. */
export const stepEffects = {
  match: 'identity.match',
  consent: 'identity.consent-request',
  face: 'identity.face',
} as const satisfies Record<Exclude<IdentityStep, 'otp'>, EffectKind>;

/** The ladder of a context: `['otp']` for a flow stored before ladders. */
function stepsOf(context: LadderContext): readonly IdentityStep[] {
  return context.steps ?? ['otp'];
}

/** The step being climbed. */
function currentStep(context: LadderContext): IdentityStep | undefined {
  return stepsOf(context)[context.stepIndex ?? 0];
}

type Args = { context: LadderContext; event: { type: string } };

/** True when the step after the current one is `step`. */
const nextIs =
  (step: IdentityStep | undefined) =>
  ({ context }: Args): boolean =>
    stepsOf(context)[(context.stepIndex ?? 0) + 1] === step;

/** The result of the awaited step's effect, from its `effect-succeeded`. */
function resultOf(event: { type: string }): Readonly<Record<string, unknown>> {
  return event.type === 'effect-succeeded' ? (event as EffectSucceededEvent).result : {};
}

/** The guards of the ladder. */
export const ladderGuards = {
  nextIsMatch: nextIs('match'),
  nextIsConsent: nextIs('consent'),
  nextIsOtp: nextIs('otp'),
  nextIsFace: nextIs('face'),
  /** The awaited effect is of `kind` (a step's outcome is read by its kind). */
  effectIs: ({ context }: Args, kind: EffectKind) => context.effect?.kind === kind,
  /** The step's effect answered that the step passed. */
  stepPassed: ({ event }: Args) => resultOf(event).outcome === 'passed',
  /** A consent request was made: the user now has to answer it. */
  consentRequested: ({ event }: Args) => resultOf(event).outcome === 'consent-requested',
  /** The consent is not answered yet. */
  consentPending: ({ event }: Args) => resultOf(event).outcome === 'pending',
  /** The step being climbed is the OTP: only then a resend makes sense. */
  atOtpStep: ({ context }: Args) => currentStep(context) === 'otp',
};

/** The error of a step that did not pass, from its effect's answer (`errorCode`, `errorMessage`). */
export function stepFailure(event: { type: string }): FlowError {
  const result = resultOf(event);
  const code = typeof result.errorCode === 'string' ? result.errorCode : 'step_failed';
  const message = typeof result.errorMessage === 'string' ? result.errorMessage : 'the identity step did not pass';
  return { code, message };
}

/** The context change when the current step passed: recorded (booleans and who), and the next step's index. */
export function passStep(context: LadderContext, event: { type: string }): Partial<LadderContext> {
  const step = currentStep(context) ?? 'otp';
  const result = resultOf(event);
  const by = typeof result.by === 'string' ? result.by : typeof result.sentBy === 'string' ? result.sentBy : undefined;
  const passed: PassedStep = {
    step,
    ...(by === undefined ? (step === 'otp' && context.sentBy !== undefined ? { by: context.sentBy } : {}) : { by }),
    ...(typeof result.fields === 'object' && result.fields !== null
      ? { fields: result.fields as Record<string, boolean> }
      : {}),
    ...(typeof result.live === 'boolean' ? { live: result.live } : {}),
  };
  return {
    passed: [...(context.passed ?? []), passed],
    stepIndex: (context.stepIndex ?? 0) + 1,
    consentUrl: undefined,
    consentReference: undefined,
  };
}

/**
 * The transitions taken when the current step passes (under `guard`, with `actions` first): to the next step's
 * state, or to `verified` after the last. `begin*` are the machine's actions that start each step.
 */
export function advance(guard: unknown, actions: readonly string[], from?: IdentityStep): readonly never[] {
  const when = (next: string) => (guard === undefined ? next : and([guard as never, next as never]));
  const steps: ReadonlyArray<[IdentityStep, string, string]> = [
    ['match', 'checking', 'beginMatch'],
    ['consent', 'checking', 'beginConsent'],
    ['otp', 'sending', 'beginOtp'],
    ['face', 'awaiting-selfie', 'awaitSelfie'],
  ];
  return [
    // A ladder names each step once: the step just passed (`from`) never comes next.
    ...steps
      .filter(([step]) => step !== from)
      .map(([step, target, begin]) => ({
        guard: when(`nextIs${step[0]!.toUpperCase()}${step.slice(1)}`),
        target,
        // From `checking` to `checking`: re-entered, so its entry runs the next step's effect.
        ...(target === 'checking' ? { reenter: true } : {}),
        actions: [...actions, 'passStep', begin],
      })),
    { ...(guard === undefined ? {} : { guard }), target: 'verified', actions: [...actions, 'passStep', 'climbed'] },
  ] as never[];
}
