import { parseInput } from '@verikit/provider';
import { ConflictError } from '../errors/conflict-error.js';
import { clientOf, type CallOptions } from '../guard/call-options.js';
import type { EffectMemory, FlowEnvironment } from '../flows/flow-definition.js';
import type { StartInput } from '../inputs/inputs.js';
import { generateFlowId } from '../secrets/secrets.js';
import { recordSchemaVersion, type FlowRecord } from '../store/flow-store.js';
import { effectsOf, type CommitLoop } from './commit-loop.js';
import type { EffectRunner } from './effect-runner.js';
import type { FlowRecords } from './flow-records.js';
import type { EngineSettings } from './options.js';
import type { SendLimit } from './send-limit.js';
import type { FlowView } from './view.js';

/** What starting a flow uses. */
export interface StartDeps {
  readonly settings: EngineSettings;
  readonly env: FlowEnvironment;
  readonly records: FlowRecords;
  readonly commits: CommitLoop;
  readonly limits: SendLimit;
  readonly effects: EffectRunner;
}

/**
 * `verikit.start`: checks the input and what the provider can do, passes the send guard (for the
 * `client` of `options`) and takes a unit of the recipient's send limit, writes the new flow
 * (version 1), then runs its first provider call. Resolves once that call settled.
 */
export async function startFlow(deps: StartDeps, rawInput: StartInput, options?: CallOptions): Promise<FlowView> {
  const { settings, env, records, commits, limits } = deps;
  const input = parseInput(settings.inputs.start, rawInput);
  const client = clientOf(options);
  const flow = records.flow(input.kind);
  const { definition } = flow;
  definition.check(input, env);
  const id = generateFlowId();
  const now = settings.clock.now();
  const memory: EffectMemory = {};
  const machineInput = definition.machineInput(input, { flowId: id, now, memory }, env);
  await limits.admit(definition.sendLimitKey(machineInput, env), machineInput, client, now);
  const [snapshot, actions] = flow.transitions.initial(machineInput);
  const record: FlowRecord = {
    schemaVersion: recordSchemaVersion,
    id,
    kind: input.kind,
    version: 1,
    value: snapshot.value as string,
    context: snapshot.context as Record<string, unknown>,
    createdAt: now,
    updatedAt: now,
  };
  const view = await commits.write(record, undefined, snapshot, now);
  if (view === undefined) throw new ConflictError('a flow with this id exists already');
  settings.logger.info('verikit.flow.started', { flowId: id, kind: input.kind });
  await commits.publish(view);
  return deps.effects.run(id, effectsOf(actions), view, memory, { record, flow, snapshot });
}
