// The layers of @verikit/core's source folders, lowest first: a folder imports only folders of lower layers, never
// one of its own layer or above. Read by .dependency-cruiser.cjs (`pnpm check:circles` fails on an upward import)
// and by scripts/architecture-page.ts (the "Inside core" table of docs/architecture.md). The entry files at src/
// (index.ts, internal.ts, opentelemetry.ts) sit above every layer. Tests and fixtures are not held to it.
/** @type {ReadonlyArray<{ name: string, folders: Readonly<Record<string, string>> }>} */
const coreLayers = [
  {
    name: 'foundations',
    folders: {
      errors: "the engine's own error classes (`FlowNotFoundError`, `ConflictError`, `StoreError`, …)",
      time: 'the `Clock` interface and the system clock',
      logging: '`errorCode`: what a log line may say of an error',
      secrets: '`SecretBox`: keyed hashes, sealing, masks, flow ids and OTPs',
      inputs:
        'the schemas of what callers pass in (start inputs, user events, call options, provider events), parsed at the edge',
      keys: '`store-keys.ts`: every key name verikit stores under, numbers only as keyed hashes',
    },
  },
  {
    name: 'flows',
    folders: {
      flows:
        'the flow kinds (a pure machine and a definition each), their policies, the view a UI renders and the lifecycle events a change means; no I/O',
    },
  },
  {
    name: 'store',
    folders: {
      store: 'the `FlowStore` interface, its in-memory Keyv implementation, the event outbox and send-guard counts',
    },
  },
  {
    name: 'services',
    folders: {
      guard: 'the send guard: per client, per number prefix, global budget, country allow-list',
      ownership: 'flow secrets and the keys of repeated starts',
      proof: 'what a verified flow verified, and signed proofs redeemed once',
      inbound: 'what a provider tells us: claimed by delivery id, receipts mapped onto flows',
      outbound: "the app's event webhook: outbox delivery, signed with Standard Webhooks",
      telemetry: "the engine's spans and metrics (OpenTelemetry optional)",
    },
  },
  {
    name: 'engine',
    folders: {
      engine:
        '`createVerikit`: the commit loop and its after-commit steps, the effect runner, starts, user and provider events',
    },
  },
];

module.exports = { coreLayers };
