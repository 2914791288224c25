import {
  fakeParts,
  FakeInboxLog,
  serveProviderFake,
  type FakeInboxDialInSession,
  type FakeRequest,
  type RunningFake,
} from '@verikit/provider-utils/fake';
import type { Hono } from 'hono';
import {
  FakeUssdDialler,
  postCallback,
  type FakeDial,
  type FakeUssdScreen,
  type LoggedCallback,
} from './africastalking-fake-dialler.js';
import { mountAfricasTalkingRoutes } from './africastalking-fake-routes.js';

/** Options of {@link startAfricasTalkingFake}. */
export interface AfricasTalkingFakeOptions {
  /** The application username the fake accepts. Default `sandbox`, as the sandbox app's. */
  readonly username?: string;
  /** The API key the fake accepts. Default `africastalking-fake-api-key`. */
  readonly apiKey?: string;
  /** The application's USSD callback URL: where `dial` posts session requests. Settable later with `setCallbackUrl`. */
  readonly callbackUrl?: string;
  /** The application's delivery-report callback URL: each message taken is reported `Success` there. */
  readonly deliveryReportUrl?: string;
  /** The service code the fake serves. Default `*384*1234#`. */
  readonly serviceCode?: string;
  /** The `networkCode` of dials and reports. Default `63902` (Safaricom, Kenya). */
  readonly networkCode?: string;
  /** Port on 127.0.0.1. Default 0: a free one. */
  readonly port?: number;
  /** Latency added to every answer, in ms. Default 0. */
  readonly latencyMs?: number;
  /** Latency of the magic "slow" numbers, in ms. Default 3000. */
  readonly slowMs?: number;
}

/** A request the fake answered, for logs (never a body, nor the query string). */
export type AfricasTalkingFakeRequest = FakeRequest;

/** The provider settings that point at a fake. */
export interface AfricasTalkingFakeSettings {
  /** The username the fake accepts. */
  readonly username: string;
  /** The API key the fake accepts; the CLI never prints one given on its command line. */
  readonly apiKey: string;
  /** The fake, standing in for `https://api.africastalking.com`. */
  readonly baseUrl: string;
  /** The USSD service code the fake dials (`serviceCode`): with it, the provider has the `dialIn` capability. */
  readonly ussdServiceCode: string;
}

/** A running Africa's Talking fake: its API, and a handset that dials the application's USSD callback. */
export interface AfricasTalkingFake extends RunningFake<AfricasTalkingFakeRequest> {
  /** Spread into `createAfricasTalkingProvider` to point it at the fake. */
  readonly settings: AfricasTalkingFakeSettings;
  /** The service code it serves, e.g. `*384*1234#`. */
  readonly serviceCode: string;
  /** Dials the service code as `phoneNumber` would: posts the session's first request to the callback URL. */
  dial(dial: FakeDial): Promise<FakeUssdScreen>;
  /** Answers a `CON` screen of an open session. */
  reply(sessionId: string, input: string): Promise<FakeUssdScreen>;
  /** Changes where sessions are posted (e.g. once the application under test listens). */
  setCallbackUrl(url: string): void;
  /** Delivery reports the fake could not deliver (the report URL refused or was unreachable). */
  readonly undeliveredReports: number;
}

/** The username and API key the fake accepts unless told otherwise. */
export const defaultAfricasTalkingFakeSettings = Object.freeze({
  /** The sandbox app's username. */
  username: 'sandbox',
  /** The API key. */
  apiKey: 'africastalking-fake-api-key',
  /** The service code. */
  serviceCode: '*384*1234#',
});

/**
 * Starts a fake of Africa's Talking on 127.0.0.1: its messaging API with an outbox, magic numbers that fail on
 * purpose (`africasTalkingMagicNumbers`) and latency; delivery reports to `deliveryReportUrl`; and a dialler
 * that posts USSD session requests to the application's `callbackUrl`, as the network would.
 *
 * @example
 * const fake = await startAfricasTalkingFake({ callbackUrl: 'http://127.0.0.1:3000/ussd' });
 * const provider = createAfricasTalkingProvider(fake.settings);
 * const screen = await fake.dial({ phoneNumber: '+254711000001', code: '*384*1234*58#' });
 */
export async function startAfricasTalkingFake(options: AfricasTalkingFakeOptions = {}): Promise<AfricasTalkingFake> {
  const parts = fakeParts(options);
  const { outbox } = parts;
  const username = options.username ?? defaultAfricasTalkingFakeSettings.username;
  const apiKey = options.apiKey ?? defaultAfricasTalkingFakeSettings.apiKey;
  const serviceCode = options.serviceCode ?? defaultAfricasTalkingFakeSettings.serviceCode;
  if (!/^\*\d+(?:\*\d+)*#$/.test(serviceCode)) throw new TypeError('serviceCode must look like *384*1234#');
  const networkCode = options.networkCode ?? '63902';
  let callbackUrl = options.callbackUrl;
  // The inbox page follows the callbacks sent (USSD session requests, delivery reports) and the sessions dialled.
  const changes = new Set<() => void>();
  const changed = () => {
    for (const listener of changes) listener();
  };
  const callbacks = new FakeInboxLog<LoggedCallback>({ onChange: changed });
  const dialler = new FakeUssdDialler(serviceCode, networkCode, () => callbackUrl, outbox, {
    callbacks,
    onChange: changed,
  });
  const reports = new Set<Promise<void>>();
  let undelivered = 0;
  const is2xx = (response: Response) => response.status >= 200 && response.status <= 299;
  const report = (message: { messageId: string; phoneNumber: string; delivered: boolean }) => {
    const url = options.deliveryReportUrl;
    if (url === undefined) return;
    // The documented fields; `failureReason` only on a failure (docs.africastalking.com/sms/deliveryreports).
    const fields = {
      id: message.messageId,
      status: message.delivered ? 'Success' : 'Failed',
      phoneNumber: message.phoneNumber,
      networkCode,
      ...(message.delivered ? {} : { failureReason: 'DeliveryFailure' }),
      retryCount: '0',
    };
    const sending = postCallback(callbacks, message.messageId, url, fields, is2xx)
      .then((answered) => {
        if (answered === undefined || !is2xx(answered.response)) undelivered += 1;
      })
      .finally(() => reports.delete(sending));
    reports.add(sending);
  };
  // The inbox's dial and reply forms: the session as it then stands.
  const shown = (screen: FakeUssdScreen): FakeInboxDialInSession => {
    const session = dialler.session(screen.sessionId);
    if (session === undefined) throw new TypeError('the session is no longer shown');
    return session;
  };
  /** The vendor's routes, and the fake's own controls: dial and reply to a USSD session. */
  const routes = (app: Hono) => {
    mountAfricasTalkingRoutes(app, {
      ...parts,
      username,
      apiKey,
      // Reported after the answer, as the network reports later.
      delivered: (message) => void setTimeout(() => report(message), 0),
    });
    app.post('/__fake/ussd/dial', async (c) => {
      const body = (await c.req.json().catch(() => null)) as { phoneNumber?: unknown; code?: unknown } | null;
      try {
        return c.json(
          await dialler.dial({ phoneNumber: String(body?.phoneNumber), code: String(body?.code ?? serviceCode) }),
        );
      } catch (error) {
        return c.json({ error: (error as Error).message }, 400);
      }
    });
    app.post('/__fake/ussd/reply', async (c) => {
      const body = (await c.req.json().catch(() => null)) as { sessionId?: unknown; input?: unknown } | null;
      try {
        return c.json(await dialler.reply(String(body?.sessionId), String(body?.input)));
      } catch (error) {
        return c.json({ error: (error as Error).message }, 400);
      }
    });
  };
  const running = await serveProviderFake(parts, {
    name: "Africa's Talking",
    port: options.port,
    routes,
    notFound: (c) => c.text('Not Found', 404),
    inbox: {
      dialIn: {
        serviceCode,
        callbackUrl: () => callbackUrl,
        sessions: () => dialler.sessions,
        dial: async (phoneNumber, code) => shown(await dialler.dial({ phoneNumber, code })),
        reply: async (sessionId, input) => shown(await dialler.reply(sessionId, input)),
      },
      webhooks: () => callbacks.entries,
      webhooksTitle: 'Callbacks',
      onChange(listener) {
        changes.add(listener);
        return () => changes.delete(listener);
      },
    },
    clearPending: () => dialler.clear(),
  });
  const closeServer = running.close;
  // A getter, defined rather than assigned: `Object.assign` would copy its value at this moment (0) for good.
  Object.defineProperty(running, 'undeliveredReports', { get: () => undelivered, enumerable: true });
  return Object.assign(running as typeof running & { readonly undeliveredReports: number }, {
    settings: { username, apiKey, baseUrl: running.url, ussdServiceCode: serviceCode },
    serviceCode,
    dial: (dial: FakeDial) => dialler.dial(dial),
    reply: (sessionId: string, input: string) => dialler.reply(sessionId, input),
    setCallbackUrl(url: string) {
      callbackUrl = url;
    },
    async close() {
      await Promise.allSettled([...reports]);
      await closeServer();
    },
  });
}
