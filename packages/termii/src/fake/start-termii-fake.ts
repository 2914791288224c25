import { fakeParts, serveProviderFake, type FakeRequest, type RunningFake } from '@verikit/provider-utils/fake';
import { mountTermiiRoutes } from './termii-fake-routes.js';
import { termiiMagicOf } from './termii-magic-numbers.js';
import { TermiiFakeTokens } from './termii-fake-tokens.js';
import { sendTermiiDeliveryReport, type TermiiFakeDeliveryReports } from './termii-fake-reports.js';

/** Options of {@link startTermiiFake}. */
export interface TermiiFakeOptions {
  /** The API key the fake accepts. Default `termii-fake-api-key`. */
  readonly apiKey?: string;
  /** Port on 127.0.0.1. Default 0: a free one. */
  readonly port?: number;
  /** Latency added to every answer, in ms. Default 0. */
  readonly latencyMs?: number;
  /** Latency of the magic "slow" numbers, in ms. Default 3000. */
  readonly slowMs?: number;
  /**
   * Send a signed delivery report of every message whose answer names a `message_id` (messaging, SMS codes
   * sent as messages, WhatsApp and voice codes) to this URL, as Termii does. Absent: no reports.
   */
  readonly deliveryReports?: TermiiFakeDeliveryReports;
  /**
   * Whether Termii's Search API (`GET /api/check/dnd`) reports a number (digits, no `+`) `DND blacklisted`. Default:
   * the `dnd` magic number only. It changes nothing else: what the routes deliver is the magic numbers' business (a
   * simulation's carrier layer decides delivery itself).
   */
  readonly dndNumbers?: (number: string) => boolean;
}

/** A request the fake answered, for logs (never a body, nor the query string, which would carry the API key). */
export type TermiiFakeRequest = FakeRequest;

/** A running Termii fake. Its outbox leaves out messages to a DND number on the generic route, which Termii never delivers. */
export interface TermiiFake extends RunningFake<TermiiFakeRequest> {
  /** What to pass as `baseUrl` (the same server). */
  readonly baseUrl: string;
  /** The API key it accepts: give it to the provider. */
  readonly apiKey: string;
}

/** The API key the fake accepts unless told otherwise. */
const defaultTermiiFakeApiKey = 'termii-fake-api-key';

/**
 * Starts a fake of Termii's public API (token and messaging routes) on 127.0.0.1, with an outbox, magic
 * numbers that fail on purpose (`termiiMagicNumbers`) and latency. For tests and for development.
 *
 * @example
 * const fake = await startTermiiFake();
 * const provider = createTermiiProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, senderId: 'Acme' });
 */
export async function startTermiiFake(options: TermiiFakeOptions = {}): Promise<TermiiFake> {
  const parts = fakeParts(options);
  const tokens = new TermiiFakeTokens();
  const apiKey = options.apiKey ?? defaultTermiiFakeApiKey;
  const fake = await serveProviderFake(parts, {
    name: 'termii',
    port: options.port,
    routes: (app) =>
      mountTermiiRoutes(app, {
        ...parts,
        apiKey,
        tokens,
        dndNumbers: options.dndNumbers ?? ((number) => termiiMagicOf(number) === 'dnd'),
        ...(options.deliveryReports
          ? { report: (message) => sendTermiiDeliveryReport(options.deliveryReports!, message) }
          : {}),
      }),
    notFound: (c) => c.json({ code: 'fail', message: 'Not found' }, 404),
    clearPending: () => tokens.clear(),
  });
  return Object.assign(fake, { baseUrl: fake.url, apiKey });
}
