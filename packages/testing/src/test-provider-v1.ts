import {
  CapabilityError,
  InvalidInputError,
  ProviderRejectedError,
  type IdentityConsentInputV1,
  type IdentityConsentRequestV1,
  type IdentityConsentStatusV1,
  type IdentityFaceInputV1,
  type IdentityFaceResultV1,
  type IdentityMatchInputV1,
  type IdentityMatchResultV1,
  type IdentitySendOtpInputV1,
  type IdentityStepsCapabilityV1,
  type MessageSendResultV1,
  type PhoneChannel,
  type PhoneCheckInputV1,
  type PhoneCheckResultV1,
  type PhoneSendInputV1,
  type PhoneSendResultV1,
  type ProviderCallContextV1,
  type ProviderEventV1,
  type ProviderV1,
  type SmsSendInputV1,
  type UssdInitiateInputV1,
  type UssdInitiateResultV1,
  type WebhooksCapabilityV1,
  type InboundCapabilityV1,
  type WhatsAppSendInputV1,
} from '@verikit/provider';

/** The provider operations the double implements, by name. */
export interface TestProviderV1Operations {
  /** Input and result of `ussd.initiate`. */
  'ussd.initiate': [UssdInitiateInputV1, UssdInitiateResultV1];
  /** Input and result of `phone.send`. */
  'phone.send': [PhoneSendInputV1, PhoneSendResultV1];
  /** Input and result of `phone.check`. */
  'phone.check': [PhoneCheckInputV1, PhoneCheckResultV1];
  /** Input of `identity.sendOtp`; it returns nothing. */
  // biome-ignore lint/suspicious/noConfusingVoidType: mirrors sendOtp's Promise<void> in spec v1, so a scripted `() => void` function fits.
  'identity.sendOtp': [IdentitySendOtpInputV1, void];
  /** Input and result of `identitySteps.match`. */
  'identity.match': [IdentityMatchInputV1, IdentityMatchResultV1];
  /** Input and result of `identitySteps.consent.request`. */
  'identity.consent.request': [IdentityConsentInputV1, IdentityConsentRequestV1];
  /** Input and result of `identitySteps.consent.status`. */
  'identity.consent.status': [
    {
      /** The consent request's reference. */
      readonly reference: string;
    },
    IdentityConsentStatusV1,
  ];
  /** Input and result of `identitySteps.face`. */
  'identity.face': [IdentityFaceInputV1, IdentityFaceResultV1];
  /** Input and result of `sms.send`. */
  'sms.send': [SmsSendInputV1, MessageSendResultV1];
  /** Input and result of `whatsapp.send`. */
  'whatsapp.send': [WhatsAppSendInputV1, MessageSendResultV1];
}

/** An operation name, as `script`, `failNext` and the recorded calls name it. */
export type TestOperation = keyof TestProviderV1Operations;

/** A scripted answer: a value, an error to throw, or a function computing either. */
export type ScriptedResult<K extends TestOperation> =
  | TestProviderV1Operations[K][1]
  | Error
  | ((
      input: TestProviderV1Operations[K][0],
    ) => TestProviderV1Operations[K][1] | Promise<TestProviderV1Operations[K][1]>);

/** One recorded call. The double records inputs as given, OTPs included: it is for tests only. */
export interface RecordedCall<K extends TestOperation = TestOperation> {
  /** Which operation was called. */
  readonly operation: K;
  /** The input as given. */
  readonly input: TestProviderV1Operations[K][0];
  /** The key the engine passed: equal keys mean the engine repeated one effect. */
  readonly idempotencyKey: string;
  /** When the call came (this machine's clock, ms since the epoch). */
  readonly at: number;
}

/** A message the double "delivered": what a user's phone would have received. */
export interface DeliveredMessage {
  /** How it would have travelled. */
  readonly channel: 'sms' | 'voice' | 'whatsapp' | 'ussd';
  /** The recipient, in E.164. */
  readonly to: string;
  /** The text as the user would see it, code included. */
  readonly text: string;
  /** The code in the message, when it carries one. */
  readonly code?: string;
}

/** Options of {@link createTestProviderV1}: what the double answers with and what it declares. */
export interface TestProviderV1Options {
  /** Default `test`. */
  name?: string;
  /** The code phone verification sends. Default `123456`; a function makes one per number. */
  phoneCode?: string | ((phoneNumber: string) => string);
  /** The OTP USSD initiation returns. Default `4321`. */
  ussdOtp?: string;
  /** The USSD code to dial. Default `*384*1234#`. */
  ussdCode?: string;
  /** Channels for phone verification. Default sms and voice. */
  channels?: readonly PhoneChannel[];
  /** Whether phone.send accepts a code we generate (`code`). Default false. */
  customCode?: boolean;
  /** Added to every call, in ms. Default 0. Honours the call's abort signal. */
  latencyMs?: number;
  /** The sender of SMS that name none. Default none: such an SMS is an `InvalidInputError` on `from`, as with a real provider. */
  defaultSender?: string;
  /** Whether identity.sendOtp takes a 16-character virtual NIN (`identity.virtualNin`). Default true. */
  virtualNin?: boolean;
  /**
   * The identity steps it offers (`identitySteps`). Default all three: `match`, `consent` and `face`; `[]` offers none,
   * as a provider without them. By default every step passes: a match answers true for every claim, a consent request
   * is granted, a selfie matches and is live; script the other outcomes (`script('identity.match', …)`).
   */
  identitySteps?: ReadonlyArray<'match' | 'consent' | 'face'>;
  /** The phone numbers registered for identity numbers; any number not listed gets `+2348000000000`. */
  identities?: Readonly<Record<string, string>>;
  /**
   * The webhooks capability to offer. Default none: the double pushes its events through
   * `completeUssd`, and has no wire format of its own. A test that delivers a real provider's signed
   * webhooks gives it that provider's parser, e.g. `{ parse: createGatewayWebhookParser() }` from
   * `@verikit/gateway`, so the service's body is parsed in one place only (docs/decisions/0621-test-double-takes-a-webhook-parser.md).
   */
  webhooks?: WebhooksCapabilityV1;
  /**
   * The numbers users send to for a plan's inbound steps (`inbound`), per channel, E.164. Default none: the double
   * receives no messages. Deliver a message with `verikit.receive({ id, event: { type: 'inbound-message', … } })`.
   */
  inboundNumbers?: Readonly<Partial<Record<'sms' | 'whatsapp', string>>>;
  /**
   * How many calls, and how many delivered messages, the double keeps: past it the oldest are dropped, so a
   * long-running process (a dev server, a load test) does not grow without end. Default 1,000 of each;
   * `Infinity` keeps all.
   */
  historyLimit?: number;
}

/**
 * A scriptable provider for tests: implements every capability of spec v1 in memory, records
 * its calls (the last 1,000 by default), gives deterministic codes, and fails or slows down on demand.
 *
 * @example
 * const provider = createTestProviderV1();
 * provider.failNext('phone.send', new ProviderUnavailableError('down'));
 * const verikit = createVerikit({ provider, secret });
 */
export interface TestProviderV1 extends ProviderV1 {
  /** The calls made, oldest first, the last `historyLimit` of them (default 1,000): assert on what the engine asked for. */
  readonly calls: readonly RecordedCall[];
  /** The messages delivered, oldest first, the last `historyLimit` of them (default 1,000). */
  readonly outbox: readonly DeliveredMessage[];
  /** Calls of one operation. */
  callsOf<K extends TestOperation>(operation: K): ReadonlyArray<RecordedCall<K>>;
  /** Queues answers for the next calls of `operation`, used once each in order, before the default behaviour. */
  script<K extends TestOperation>(operation: K, ...results: Array<ScriptedResult<K>>): void;
  /** Queues one failure for the next call of `operation`. */
  failNext(operation: TestOperation, error: Error): void;
  /** Sets the latency of every later call. */
  setLatency(ms: number): void;
  /** The last code delivered to `to` (a phone number), from the outbox. */
  lastCode(to: string): string | undefined;
  /**
   * Acts as the service when the user dials the USSD code: builds the USSD_VERIFICATION event and
   * hands it to every `onEvent` listener (wire one to `verikit.receive`).
   */
  completeUssd(phoneNumber: string, status?: 'success' | 'failed'): Promise<ProviderEventV1>;
  /** Listens for events the double pushes; returns the unsubscribe function. */
  onEvent(listener: (event: ProviderEventV1) => unknown): () => void;
  /** Forgets calls, outbox, scripts and sessions. */
  reset(): void;
}

function abortable(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Creates a {@link TestProviderV1}. */
export function createTestProviderV1(options: TestProviderV1Options = {}): TestProviderV1 {
  const historyLimit = options.historyLimit ?? 1000;
  if (!(historyLimit === Number.POSITIVE_INFINITY || (Number.isInteger(historyLimit) && historyLimit >= 1)))
    throw new RangeError(`historyLimit must be a whole number of at least 1, or Infinity; got ${String(historyLimit)}`);
  const calls: RecordedCall[] = [];
  const outbox: DeliveredMessage[] = [];
  /** Adds `entry` to `history`, dropping the oldest past the limit. */
  const keep = <T>(history: T[], entry: T) => {
    history.push(entry);
    if (history.length > historyLimit) history.shift();
  };
  const scripts = new Map<TestOperation, unknown[]>();
  const listeners = new Set<(event: ProviderEventV1) => unknown>();
  const phoneRequests = new Map<string, { phoneNumber: string; code: string }>();
  let latencyMs = options.latencyMs ?? 0;
  let sequence = 0;

  async function run<K extends TestOperation>(
    operation: K,
    input: TestProviderV1Operations[K][0],
    context: ProviderCallContextV1,
    fallback: () => TestProviderV1Operations[K][1],
  ): Promise<TestProviderV1Operations[K][1]> {
    keep(calls, { operation, input, idempotencyKey: context.idempotencyKey, at: Date.now() } as RecordedCall);
    await abortable(latencyMs, context.signal);
    const queue = scripts.get(operation);
    const scripted = queue?.shift() as ScriptedResult<K> | undefined;
    if (scripted === undefined) return fallback();
    if (scripted instanceof Error) throw scripted;
    if (typeof scripted === 'function')
      return (scripted as (value: typeof input) => TestProviderV1Operations[K][1])(input);
    return scripted as TestProviderV1Operations[K][1];
  }

  const phoneCode = (phoneNumber: string) =>
    typeof options.phoneCode === 'function' ? options.phoneCode(phoneNumber) : (options.phoneCode ?? '123456');

  const provider: TestProviderV1 = {
    specificationVersion: 'v1',
    name: options.name ?? 'test',
    calls,
    outbox,
    ussd: {
      initiate: (input, context) =>
        run('ussd.initiate', input, context, () => {
          const result = {
            otp: options.ussdOtp ?? '4321',
            ussdCode: options.ussdCode ?? '*384*1234#',
            reference: `ussd-${++sequence}`,
          };
          keep(outbox, {
            channel: 'ussd',
            to: input.phoneNumber,
            text: `Dial ${result.ussdCode} and enter ${result.otp}`,
            code: result.otp,
          });
          return result;
        }),
    },
    phone: {
      channels: options.channels ?? ['sms', 'voice'],
      customCode: options.customCode === true,
      send: (input, context) =>
        run('phone.send', input, context, () => {
          // As a real provider: a channel or a code it cannot serve is a CapabilityError, and nothing is sent.
          if (!(options.channels ?? ['sms', 'voice']).includes(input.channel)) {
            throw new CapabilityError(`phone verification by ${input.channel}`, options.name ?? 'test', {
              field: 'channel',
            });
          }
          if (input.code !== undefined && options.customCode !== true) {
            throw new CapabilityError('phone verification with a code we generate', options.name ?? 'test', {
              field: 'code',
            });
          }
          const requestId = `req-${++sequence}`;
          const code = input.code ?? phoneCode(input.phoneNumber);
          phoneRequests.set(requestId, { phoneNumber: input.phoneNumber, code });
          keep(outbox, {
            channel: input.channel,
            to: input.phoneNumber,
            text: `Your verification code is ${code}`,
            code,
          });
          return { requestId };
        }),
      check: (input, context) =>
        run('phone.check', input, context, () => {
          const request = phoneRequests.get(input.requestId);
          if (!request) throw new ProviderRejectedError('unknown requestId', { providerMessage: 'Error sending OTP' });
          return { valid: request.code === input.code };
        }),
    },
    ...identityStepsOf(options, run, () => ++sequence),
    identity: {
      types: ['bvn', 'nin'],
      virtualNin: options.virtualNin ?? true,
      sendOtp: (input, context) =>
        run('identity.sendOtp', input, context, () => {
          const to = options.identities?.[input.number] ?? '+2348000000000';
          keep(outbox, {
            channel: 'sms',
            to,
            text: `Your ${input.idType.toUpperCase()} verification code is ${input.otp}`,
            code: input.otp,
          });
        }),
    },
    sms: {
      send: (input, context) => {
        if (input.from === undefined && options.defaultSender === undefined) {
          return Promise.reject(
            new InvalidInputError([{ field: 'from', message: 'is required: pass from, or configure defaultSender' }]),
          );
        }
        return run('sms.send', { ...input, from: input.from ?? options.defaultSender }, context, () => {
          keep(outbox, { channel: 'sms', to: input.to, text: input.message });
          return { messageId: `sms-${++sequence}` };
        });
      },
    },
    whatsapp: {
      send: (input, context) =>
        run('whatsapp.send', input, context, () => {
          keep(outbox, { channel: 'whatsapp', to: input.phoneNumber, text: input.message });
          return { messageId: `wa-${++sequence}` };
        }),
    },
    ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
    ...(options.inboundNumbers === undefined ? {} : { inbound: inboundOf(options.inboundNumbers) }),
    callsOf(operation) {
      return calls.filter((call) => call.operation === operation) as never;
    },
    script(operation, ...results) {
      const queue = scripts.get(operation) ?? [];
      queue.push(...results);
      scripts.set(operation, queue);
    },
    failNext(operation, error) {
      provider.script(operation, error as never);
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    lastCode(to) {
      for (let index = outbox.length - 1; index >= 0; index -= 1) {
        const message = outbox[index]!;
        if (message.to === to && message.code !== undefined) return message.code;
      }
      return undefined;
    },
    async completeUssd(phoneNumber, status = 'success') {
      const event: ProviderEventV1 = { type: 'ussd-verification', phoneNumber, status };
      await Promise.all([...listeners].map((listener) => listener(event)));
      return event;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reset() {
      calls.length = 0;
      outbox.length = 0;
      scripts.clear();
      phoneRequests.clear();
      latencyMs = options.latencyMs ?? 0;
    },
  };
  return provider;
}

type Run = <K extends TestOperation>(
  operation: K,
  input: TestProviderV1Operations[K][0],
  context: ProviderCallContextV1,
  fallback: () => TestProviderV1Operations[K][1],
) => Promise<TestProviderV1Operations[K][1]>;

/** The double's identity steps: each passes unless scripted otherwise. */
function identityStepsOf(
  options: TestProviderV1Options,
  run: Run,
  next: () => number,
): Pick<ProviderV1, 'identitySteps'> {
  const offered = options.identitySteps ?? ['match', 'consent', 'face'];
  if (offered.length === 0) return {};
  const steps: { -readonly [K in keyof IdentityStepsCapabilityV1]: IdentityStepsCapabilityV1[K] } = {
    types: ['bvn', 'nin'],
    virtualNin: options.virtualNin ?? true,
    matchFields: ['firstName', 'lastName', 'dateOfBirth', 'phoneNumber'],
  };
  if (offered.includes('match'))
    steps.match = (input, context) =>
      run('identity.match', input, context, () => ({
        found: true,
        fields: Object.fromEntries(Object.keys(input.claims).map((field) => [field, true])),
      }));
  if (offered.includes('consent'))
    steps.consent = {
      request: (input, context) =>
        run('identity.consent.request', input, context, () => {
          const reference = `consent-${next()}`;
          return { reference, url: `https://consent.test/${reference}` };
        }),
      status: (input, context) => run('identity.consent.status', input, context, () => ({ status: 'granted' })),
    };
  if (offered.includes('face'))
    steps.face = (input, context) =>
      run('identity.face', input, context, () => ({ found: true, match: true, live: true }));
  return { identitySteps: steps };
}

/** The inbound capability of the double: the numbers given, per channel. */
function inboundOf(numbers: Readonly<Partial<Record<'sms' | 'whatsapp', string>>>): InboundCapabilityV1 {
  const channels = (['sms', 'whatsapp'] as const).filter((channel) => numbers[channel] !== undefined);
  return {
    channels,
    numberFor(channel) {
      const number = numbers[channel];
      if (number === undefined)
        throw new InvalidInputError([{ field: 'inboundNumbers', message: `has no ${channel} number` }]);
      return number;
    },
  };
}
