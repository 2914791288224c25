import type { Hono } from 'hono';
import { z } from 'zod';
import { magicBehaviourDescriptions, magicIdentityNumbers, magicPhoneNumbers } from './gateway-magic-numbers.js';
import type { FakeOutbox } from '@verikit/provider-utils/fake';
import type { GatewayFakeMessage, GatewayFakeMessageKind } from './gateway-fake-outbox.js';
import type { GatewayFakeService } from './gateway-fake-service.js';
import type { TestIdentity } from './test-identities.js';
import type { WebhookSender } from './webhook-sender.js';

/** What the control endpoints read and act on. */
export interface ControlDependencies {
  readonly outbox: FakeOutbox<GatewayFakeMessage>;
  readonly service: GatewayFakeService;
  readonly webhooks: WebhookSender;
  readonly identities: readonly TestIdentity[];
  readonly latency: { ms: number };
}

const dialSchema = z.strictObject({
  phoneNumber: z.string().regex(/^\+\d{8,15}$/, { error: 'must be an E.164 phone number' }),
  otp: z
    .string()
    .regex(/^\d{1,10}$/, { error: 'must be digits' })
    .optional(),
  status: z.enum(['success', 'failed']).optional(),
  wait: z.boolean().optional(),
});
const latencySchema = z.strictObject({ ms: z.number().int().min(0).max(60_000) });

async function jsonBody(request: Request): Promise<unknown> {
  try {
    return JSON.parse(await request.text());
  } catch {
    return undefined;
  }
}

/** Mounts the control endpoints under `/__sandbox/`: read the outbox, act as the user, tune latency. */
export function mountControlRoutes(app: Hono, deps: ControlDependencies): void {
  app.get('/__sandbox/health', (c) => c.json({ ok: true }));
  app.get('/__sandbox/outbox', (c) => {
    const to = c.req.query('to');
    const kind = c.req.query('kind') as GatewayFakeMessageKind | undefined;
    const messages = deps.outbox.messages.filter(
      (message) => (to === undefined || message.to === to) && (kind === undefined || message.kind === kind),
    );
    return c.json({ messages });
  });
  // Where every provider fake serves its outbox (`RunningFake`): the same messages, as a list.
  app.get('/__fake/outbox', (c) => c.json(deps.outbox.messages));
  app.get('/__sandbox/outbox/last', (c) => {
    const to = c.req.query('to');
    if (to === undefined) return c.json({ error: 'to is required' }, 400);
    const last = deps.outbox.messages.findLast((message) => message.to === to);
    return last === undefined ? c.json({ error: 'no message to this number' }, 404) : c.json(last);
  });
  app.delete('/__sandbox/outbox', (c) => {
    deps.outbox.clear();
    return c.body(null, 204);
  });
  app.get('/__sandbox/ussd/sessions', (c) => c.json({ sessions: [...deps.service.ussdSessions.values()] }));
  app.post('/__sandbox/ussd/dial', async (c) => {
    const parsed = dialSchema.safeParse(await jsonBody(c.req.raw));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json({ error: `${issue?.path.join('.') || 'body'} ${issue?.message ?? 'is invalid'}` }, 400);
    }
    const { wait, ...input } = parsed.data;
    const delivery = deps.service.dialUssd(input);
    if (delivery === undefined) return c.json({ error: 'no pending USSD session for this number' }, 404);
    if (wait) return c.json(await delivery);
    return c.json({ accepted: true }, 202);
  });
  app.get('/__sandbox/webhooks', (c) => c.json({ deliveries: deps.webhooks.deliveries }));
  app.get('/__sandbox/latency', (c) => c.json({ ms: deps.latency.ms }));
  app.post('/__sandbox/latency', async (c) => {
    const parsed = latencySchema.safeParse(await jsonBody(c.req.raw));
    if (!parsed.success) return c.json({ error: 'ms must be a whole number from 0 to 60000' }, 400);
    deps.latency.ms = parsed.data.ms;
    return c.json({ ms: deps.latency.ms });
  });
  app.get('/__sandbox/identities', (c) => c.json({ identities: deps.identities }));
  app.get('/__sandbox/magic', (c) =>
    c.json({
      phoneNumbers: magicPhoneNumbers,
      identityNumbers: magicIdentityNumbers,
      behaviours: magicBehaviourDescriptions,
    }),
  );
  app.post('/__sandbox/reset', (c) => {
    deps.outbox.clear();
    deps.service.reset();
    return c.body(null, 204);
  });
}
