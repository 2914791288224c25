import type { FlowView } from '@verikit/core';

const left = (attempts: number) =>
  attempts === 0 ? 'no attempts left' : `${attempts} attempt${attempts === 1 ? '' : 's'} left`;

/**
 * Why `attemptsLeft` reads as it does in `view`, judged against the view before it: a line for the demo to
 * print where the counter moves. Undefined when nothing about attempts happened. An attempt is taken only when
 * a code turns out wrong (a view never shows an attempt taken that is later given back: docs/flows.md), so a
 * right code leaves the counter where it was.
 */
export function attemptNote(previous: FlowView | undefined, view: FlowView): string | undefined {
  const before = previous?.attemptsLeft;
  const now = view.attemptsLeft;
  if (previous === undefined || before === undefined || now === undefined || previous.version === view.version)
    return undefined;
  if (view.status === 'locked') return `wrong code on the last attempt: ${left(0)}, the flow is locked`;
  if (view.error?.code === 'code_invalid' && (now < before || previous.status === 'checking'))
    return `wrong code: ${left(now)}`;
  if (view.error?.code === 'outcome_unknown') return `no answer about the code: the attempt stays used (${left(now)})`;
  if (now > before) return `a new code: ${left(now)}`;
  if (now < before) return left(now);
  return undefined;
}
