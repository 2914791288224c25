import type { FlowView } from '@verikit/core';

const left = (attempts: number) => (attempts === 0 ? 'no attempts left' : `${attempts} attempt${attempts === 1 ? '' : 's'} left`);

/**
 * Why `attemptsLeft` reads as it does in `view`, judged against the view before it: a line for the demo to
 * print where the counter moves, or where a wrong code keeps the attempt that checking it held. Undefined when
 * nothing about attempts happened. A phone flow holds an attempt while the provider checks a code (so parallel
 * submits cannot go past the limit) and gives it back for a right code; an identity flow checks at once.
 */
export function attemptNote(previous: FlowView | undefined, view: FlowView): string | undefined {
  const before = previous?.attemptsLeft;
  const now = view.attemptsLeft;
  if (previous === undefined || before === undefined || now === undefined || previous.version === view.version) return undefined;
  if (view.status === 'locked') return `wrong code on the last attempt: ${left(0)}, the flow is locked`;
  if (view.status === 'checking' && now < before) return `code submitted: one attempt is held while the provider checks it (${left(now)})`;
  if (view.error?.code === 'code_invalid' && (now < before || previous.status === 'checking')) return `wrong code: ${left(now)}`;
  if (view.error?.code === 'outcome_unknown') return `no answer about the code: the attempt stays used (${left(now)})`;
  if (view.status === 'verified' && now > before) return `right code: the attempt held for the check is given back (${left(now)})`;
  if (now > before) return `a new code: ${left(now)}`;
  if (now < before) return left(now);
  return undefined;
}
