import { createAfricasTalkingProvider } from '@verikit/africastalking';
import { startAfricasTalkingFake } from '@verikit/africastalking/fake';
import { createGatewayProvider } from '@verikit/gateway';
import { startGatewayFake } from '@verikit/gateway/fake';
import type { Clock } from '@verikit/core';
import type { PhoneSendResultV1, ProviderV1 } from '@verikit/provider';
import type { FakeMessage } from '@verikit/provider-utils/fake';
import { createTermiiProvider } from '@verikit/termii';
import { startTermiiFake } from '@verikit/termii/fake';
import { createTwilioProvider } from '@verikit/twilio';
import { startTwilioFake } from '@verikit/twilio/fake';
import type { Channel, ProviderName, ScenarioProvider } from './scenario-schema.js';

/** How provider requests reach the fakes. */
export type TransportMode = 'fast' | 'http';

/** A provider package wired to its running fake, as the simulator drives it. */
export interface SimProvider {
  /** Which provider. */
  readonly name: ProviderName;
  /** The provider the engine calls (its own package, unchanged). */
  readonly provider: ProviderV1;
  /** Hears every message the fake handed on (its outbox); returns the unsubscribe function. */
  onMessage(listener: (message: FakeMessage) => void): () => void;
  /** The channels whose receipts reach flows through this provider in the scenario. */
  readonly receipts: ReadonlySet<Channel>;
  /** Stops the fake. */
  close(): Promise<void>;
}

/**
 * The channels whose delivery receipts the provider packages carry to a flow today (docs/providers/README.md's
 * matrix): every Termii code (its SMS codes go as messages, `smsCodes: 'messaging'`, so their reports name the
 * message id the send kept); Twilio only for Messaging, not the Verify sends codes go by; Africa's Talking has no
 * phone codes; the gateway none.
 */
export const receiptsToday: Readonly<Record<ProviderName, readonly Channel[]>> = Object.freeze({
  termii: ['sms', 'voice', 'whatsapp'],
  twilio: [],
  africastalking: [],
  gateway: [],
});

/** The fake's outbox and handler: the parts of every running fake the simulator uses. */
interface FakeParts {
  onMessage(listener: (message: FakeMessage) => void): () => void;
  fetch(request: Request): Response | Promise<Response>;
  close(): Promise<void>;
}

/** A connection refused, as undici reports one: provably never sent. */
function refused(): TypeError {
  const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  return new TypeError('fetch failed', { cause });
}

/**
 * The fetch a provider is given: fast mode hands the request to the fake's handler in process; HTTP mode sends
 * it over loopback. Either way the scenario's outages answer first (503, or a refused connection).
 */
function transportTo(
  fake: FakeParts,
  mode: TransportMode,
  outages: ScenarioProvider['outages'],
  clock: Clock,
  start: number,
  onLookup: (phoneNumber: string) => void,
) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const second = (clock.now() - start) / 1000;
    const outage = outages.find((window) => second >= window.from && second < window.to);
    if (outage?.kind === 'refused') throw refused();
    if (outage?.kind === 'unavailable')
      return new Response('{"message":"Service Unavailable"}', {
        status: 503,
        headers: { 'content-type': 'application/json' },
      });
    const answer = await (mode === 'fast' ? fake.fetch(new Request(input, init)) : globalThis.fetch(input, init));
    // A number lookup the provider answered (Termii's DND search): counted, and priced by the rate card's lookups.
    const url = new URL(input instanceof Request ? input.url : String(input));
    const looked = url.pathname === termiiLookupPath ? url.searchParams.get('phone_number') : null;
    if (looked !== null && answer.ok) onLookup(`+${looked}`);
    return answer;
  };
}

/** The path of Termii's number lookup (developers.termii.com/search). */
const termiiLookupPath = '/api/check/dnd';

/** What the world and the plan tell a provider's wiring besides its sender. */
interface SimWorld {
  /** The plan looks numbers up (`plan.dndLookup`). */
  readonly dndLookup: boolean;
  /** Whether a number (E.164) is on its operator's Do-Not-Disturb list: what a lookup reports. */
  readonly isDnd: (phoneNumber: string) => boolean;
}

/** What each provider needs besides its transport: start its fake, create the provider against it. */
const wiring: Readonly<
  Record<
    ProviderName,
    (
      sender: string,
      fetchFor: (fake: FakeParts) => typeof globalThis.fetch,
      world: SimWorld,
    ) => Promise<{ fake: FakeParts; provider: ProviderV1 }>
  >
> = {
  async termii(sender, fetchFor, world) {
    // Termii's Search API reports the world's DND list.
    const fake = await startTermiiFake({ dndNumbers: (number) => world.isDnd(`+${number}`) });
    const provider = createTermiiProvider({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      senderId: sender,
      // SMS codes as messages, whose answer names the message id Termii's reports carry (Send Token's names none).
      smsCodes: 'messaging',
      // The generic route: whether an operator delivers to its DND subscribers is `dnd.registeredSenders` (what an
      // account's activated DND route stands for), so the route the request names changes nothing in a run.
      otpRoute: 'generic',
      dndLookup: world.dndLookup,
      fetch: fetchFor(fake),
      connectionRetries: 0,
    });
    return { fake, provider };
  },
  async twilio(sender, fetchFor) {
    const fake = await startTwilioFake();
    const provider = createTwilioProvider({
      ...fake.settings,
      from: sender,
      // The sender people message on WhatsApp for a plan's inbound step (Verify's WhatsApp codes do not use it).
      whatsappFrom: '+14155238886',
      fetch: fetchFor(fake),
      connectionRetries: 0,
    });
    return { fake, provider };
  },
  async africastalking(sender, fetchFor) {
    const fake = await startAfricasTalkingFake();
    const provider = createAfricasTalkingProvider({
      ...fake.settings,
      senderId: sender,
      fetch: fetchFor(fake),
      connectionRetries: 0,
    });
    return { fake, provider };
  },
  async gateway(sender, fetchFor) {
    const fake = await startGatewayFake();
    const provider = createGatewayProvider({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      ussdBaseUrl: fake.ussdBaseUrl,
      defaultSender: sender,
      fetch: fetchFor(fake),
      connectionRetries: 0,
    });
    return { fake, provider };
  },
};

/** Starts the scenario's providers' fakes and creates each provider against its own. */
export async function startSimProviders(
  providers: readonly ScenarioProvider[],
  mode: TransportMode,
  clock: Clock,
  world: SimWorld & { readonly onLookup: (provider: ProviderName, phoneNumber: string) => void },
): Promise<SimProvider[]> {
  const start = clock.now();
  const started: SimProvider[] = [];
  try {
    for (const settings of providers) {
      const { fake, provider } = await wiring[settings.name](
        settings.sender,
        (fake) =>
          transportTo(fake, mode, settings.outages, clock, start, (number) => world.onLookup(settings.name, number)),
        world,
      );
      started.push({
        name: settings.name,
        provider,
        receipts: new Set(settings.receipts ?? receiptsToday[settings.name]),
        onMessage: (listener) => fake.onMessage(listener),
        close: () => fake.close(),
      });
    }
  } catch (error) {
    await Promise.all(started.map((sim) => sim.close()));
    throw error;
  }
  return started;
}

/**
 * Wraps the provider to learn the ids each send answered with: what a receipt names. Nothing else changes;
 * the engine calls the provider packages as it would in production.
 */
export function observeSends(
  provider: ProviderV1,
  onSent: (phoneNumber: string, result: PhoneSendResultV1) => void,
): ProviderV1 {
  const phone = provider.phone;
  if (phone === undefined) return provider;
  return {
    ...provider,
    phone: {
      ...phone,
      async send(input, context) {
        const result = await phone.send(input, context);
        onSent(input.phoneNumber, result);
        return result;
      },
    },
  };
}
