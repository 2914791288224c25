import type { FlowView, Verikit } from '@verikit/core';

/**
 * One user action per call on lane `lane`'s phone flow (`ids[lane]`): a wrong code, which the provider checks.
 * The flow is kept open: before its last attempt it gets a fresh code (`resend`), and once its sends are used up
 * the lane starts a new flow for the same number. A faster engine makes more actions per flow, so a lane must never
 * run into a limit that would end the bench (each flow allows `maxAttempts` checks and `maxSendsPerFlow` sends). At the
 * benches' policies (100 of each) a lane starts a flow once in about 9,900 actions, counted as one action.
 */
export function wrongCodes(
  verikit: Verikit,
  ids: string[],
  phoneNumberOf: (lane: number) => string,
): (lane: number) => Promise<FlowView> {
  return async (lane) => {
    const view = await verikit.send(ids[lane]!, { type: 'submit-code', code: '000000' });
    if ((view.attemptsLeft ?? 0) > 1) return view;
    if ((view.sendsLeft ?? 0) > 0) return verikit.send(view.id, { type: 'resend' });
    const fresh = await verikit.start({ kind: 'phone', phoneNumber: phoneNumberOf(lane) });
    ids[lane] = fresh.id;
    return fresh;
  };
}
