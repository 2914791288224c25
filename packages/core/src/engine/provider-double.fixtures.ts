import {
  InvalidInputError,
  ProviderRejectedError,
  type IdentitySendOtpInputV1,
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
  type WhatsAppSendInputV1,
} from '@verikit/provider';

/**
 * Core's own test double of spec v1, so that core's tests depend on no package built on core. It
 * covers what the engine's tests use: every capability in memory, recorded calls, scripted answers,
 * a latency that honours the abort signal, and USSD results pushed to listeners. The public double
 * with the contract suite is `createTestProviderV1` of the testing package.
 */
interface Operations {
  'ussd.initiate': [UssdInitiateInputV1, UssdInitiateResultV1];
  'phone.send': [PhoneSendInputV1, PhoneSendResultV1];
  'phone.check': [PhoneCheckInputV1, PhoneCheckResultV1];
  // biome-ignore lint/suspicious/noConfusingVoidType: mirrors sendOtp's Promise<void> in spec v1, so a scripted `() => void` function fits.
  'identity.sendOtp': [IdentitySendOtpInputV1, void];
  'sms.send': [SmsSendInputV1, MessageSendResultV1];
  'whatsapp.send': [WhatsAppSendInputV1, MessageSendResultV1];
}

type Operation = keyof Operations;

/** A scripted answer: a value, an error to throw, or a function computing either. */
type Scripted<K extends Operation> =
  | Operations[K][1]
  | Error
  | ((input: Operations[K][0]) => Operations[K][1] | Promise<Operations[K][1]>);

interface RecordedCall<K extends Operation = Operation> {
  readonly operation: K;
  readonly input: Operations[K][0];
  readonly idempotencyKey: string;
}

/** What a user's phone would have received. */
interface Delivered {
  readonly channel: 'sms' | 'voice' | 'whatsapp' | 'ussd';
  readonly to: string;
  readonly code?: string;
}

export interface ProviderDoubleOptions {
  /** The code phone verification sends. Default `123456`. */
  phoneCode?: string;
  /** Channels for phone verification. Default sms and voice. */
  channels?: readonly PhoneChannel[];
  /** Added to every call, in ms; aborted with the call's signal. Default 0. */
  latencyMs?: number;
  /** The sender of SMS that name none. Default none: such an SMS is an `InvalidInputError` on `from`. */
  defaultSender?: string;
  /** The phone registered for an identity number; others get `+2348000000000`. */
  identities?: Readonly<Record<string, string>>;
}

export interface ProviderDouble extends ProviderV1 {
  readonly calls: readonly RecordedCall[];
  readonly outbox: readonly Delivered[];
  callsOf<K extends Operation>(operation: K): ReadonlyArray<RecordedCall<K>>;
  /** Answers for the next calls of `operation`, used once each in order, before the default behaviour. */
  script<K extends Operation>(operation: K, ...results: Array<Scripted<K>>): void;
  failNext(operation: Operation, error: Error): void;
  /** The last code delivered to a phone number. */
  lastCode(to: string): string | undefined;
  /** Acts as the service when the user dials: hands the USSD result to every `onEvent` listener. */
  completeUssd(phoneNumber: string, status?: 'success' | 'failed'): Promise<ProviderEventV1>;
  onEvent(listener: (event: ProviderEventV1) => unknown): void;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

export function createProviderDouble(options: ProviderDoubleOptions = {}): ProviderDouble {
  const calls: RecordedCall[] = [];
  const outbox: Delivered[] = [];
  const scripts = new Map<Operation, unknown[]>();
  const listeners = new Set<(event: ProviderEventV1) => unknown>();
  const requests = new Map<string, string>();
  let sequence = 0;

  async function run<K extends Operation>(
    operation: K,
    input: Operations[K][0],
    context: ProviderCallContextV1,
    fallback: () => Operations[K][1],
  ) {
    calls.push({ operation, input, idempotencyKey: context.idempotencyKey } as RecordedCall);
    await delay(options.latencyMs ?? 0, context.signal);
    const scripted = scripts.get(operation)?.shift() as Scripted<K> | undefined;
    if (scripted === undefined) return fallback();
    if (scripted instanceof Error) throw scripted;
    return typeof scripted === 'function' ? (scripted as (value: typeof input) => Operations[K][1])(input) : scripted;
  }

  const double: ProviderDouble = {
    specificationVersion: 'v1',
    name: 'test',
    calls,
    outbox,
    ussd: {
      initiate: (input, context) =>
        run('ussd.initiate', input, context, () => {
          outbox.push({ channel: 'ussd', to: input.phoneNumber, code: '4321' });
          return { otp: '4321', ussdCode: '*384*1234#', reference: `ussd-${++sequence}` };
        }),
    },
    phone: {
      channels: options.channels ?? ['sms', 'voice'],
      send: (input, context) =>
        run('phone.send', input, context, () => {
          const requestId = `req-${++sequence}`;
          const code = options.phoneCode ?? '123456';
          requests.set(requestId, code);
          outbox.push({ channel: input.channel, to: input.phoneNumber, code });
          return { requestId };
        }),
      check: (input, context) =>
        run('phone.check', input, context, () => {
          const code = requests.get(input.requestId);
          if (code === undefined)
            throw new ProviderRejectedError('unknown requestId', { providerMessage: 'Error sending OTP' });
          return { valid: code === input.code };
        }),
    },
    identity: {
      types: ['bvn', 'nin'],
      sendOtp: (input, context) =>
        run('identity.sendOtp', input, context, () => {
          outbox.push({ channel: 'sms', to: options.identities?.[input.number] ?? '+2348000000000', code: input.otp });
        }),
    },
    sms: {
      send(input, context) {
        const from = input.from ?? options.defaultSender;
        if (from === undefined)
          return Promise.reject(
            new InvalidInputError([{ field: 'from', message: 'is required: pass from, or configure defaultSender' }]),
          );
        return run('sms.send', { ...input, from }, context, () => {
          outbox.push({ channel: 'sms', to: input.to });
          return { messageId: `sms-${++sequence}` };
        });
      },
    },
    whatsapp: {
      send: (input, context) =>
        run('whatsapp.send', input, context, () => {
          outbox.push({ channel: 'whatsapp', to: input.phoneNumber });
          return { messageId: `wa-${++sequence}` };
        }),
    },
    callsOf: (operation) => calls.filter((call) => call.operation === operation) as never,
    script(operation, ...results) {
      scripts.set(operation, [...(scripts.get(operation) ?? []), ...results]);
    },
    failNext: (operation, error) => double.script(operation, error as never),
    lastCode: (to) => outbox.findLast((message) => message.to === to && message.code !== undefined)?.code,
    async completeUssd(phoneNumber, status = 'success') {
      const event: ProviderEventV1 = { type: 'ussd-verification', phoneNumber, status };
      await Promise.all([...listeners].map((listener) => listener(event)));
      return event;
    },
    onEvent(listener) {
      listeners.add(listener);
    },
  };
  return double;
}
