import { describe, expectTypeOf, it } from 'vitest';
import type { FlowStatus as ServerFlowStatus, FlowView as ServerFlowView, StartInput, UserEvent } from '@verikit/core';
import type { FlowEvent, FlowStatus, FlowView, StartFlowInput } from './flow-view.js';

// Checked by `pnpm typecheck`: the client's copies of the wire types must stay in step with the server's.
describe('the client types match the server types', () => {
  it('a server view is a client view; statuses are the same; what the client sends, the server takes', () => {
    expectTypeOf<ServerFlowView>().toExtend<FlowView>();
    expectTypeOf<ServerFlowStatus>().toEqualTypeOf<FlowStatus>();
    expectTypeOf<FlowEvent>().toExtend<UserEvent>();
    expectTypeOf<StartFlowInput>().toExtend<StartInput>();
  });
});
