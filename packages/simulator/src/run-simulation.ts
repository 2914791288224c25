import { CapabilityError, createVerikit, type FlowView, type Verikit } from '@verikit/core';
import { codeInText, type FakeMessage } from '@verikit/provider-utils/fake';
import { withFailover } from '@verikit/provider-utils';
import { InvalidInputError, silentLogger } from '@verikit/provider';
import { carrierFate } from './carrier.js';
import { EventQueue } from './event-queue.js';
import { drawMs, drawPopulation, typo, type Person } from './population.js';
import { chance } from './random.js';
import type { Channel, ProviderName, Scenario } from './scenario-schema.js';
import { observeSends, startSimProviders, type SimProvider } from './sim-providers.js';
import type { SimulationOptions } from './simulation-options.js';
import type { SimulationResult } from './simulation-result.js';
import { StepLedger } from './step-ledger.js';
import { guardOf } from './engine-rate-card.js';

/** The engine's secret in a run: the simulation keeps nothing. */
const secret = 'verikit-simulator-secret-0123456789abcdef';
/** How often the run carries out due timers, in virtual ms: the engine's default `timers.pollMs`. */
const timerPollMs = 1000;
/** The virtual clock's start: a fixed instant, so that every run reads the same times. */
const epoch = Date.UTC(2026, 0, 5, 8, 0, 0);

/** One person's or bot's progress through the run. */
interface Walker {
  readonly person: Person;
  flowId?: string;
  startedAt?: number;
  state: 'waiting' | 'verified' | 'gave-up' | 'refused' | 'failed';
  /** The newest code the handset shows. */
  code?: string;
  /** A submission is being typed. */
  typing: boolean;
  resendsLeft: number;
  /** The channel of the flow's newest send, as the view said. */
  channel?: Channel;
  /** When the plan sends by itself next, as the last view read said. */
  nextAt?: number;
  /** The announced time whose step has opened (by its event, or by its code when that came first). */
  openedAt?: number;
  /** The newest code message's fate, waiting for the provider's ids to route its receipt. */
  unrouted?: { ids?: readonly string[] };
  /** The provider of the first code message. */
  firstProvider?: ProviderName;
  /** Code messages the fakes handed on for this walker: a verification with none sent nothing outbound. */
  codes: number;
  /** Whether the person can send a plan's inbound message, drawn once at the first start (people.inbound). */
  canMessage?: boolean;
}

/** The percentile `p` (0 to 1) of sorted values, nearest rank; 0 for none. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** Millionths of a unit back to units. */
const money = (micros: number) => micros / 1e6;

/**
 * Runs a scenario: its people and bots start phone flows on the real engine (in-memory store, virtual clock),
 * whose providers are the real provider packages against their fakes; the carrier layer decides what each
 * message the fakes hand on becomes. Deterministic for a scenario, seed and flow count.
 */
export async function runSimulation(scenario: Scenario, options: SimulationOptions = {}): Promise<SimulationResult> {
  const seed = options.seed ?? scenario.seed;
  const flows = options.flows ?? scenario.flows;
  const mode = options.mode ?? 'fast';
  const plan = options.channels ?? scenario.plan.channels;
  /** The plan's channels a code goes on (its inbound steps left out): what a resend may name. */
  const outbound = plan.filter((step): step is Channel => !step.endsWith('-inbound'));
  const escalate =
    options.escalateAfterSeconds === false
      ? undefined
      : (options.escalateAfterSeconds ?? scenario.plan.escalateAfterSeconds);
  let virtual = 0;
  const clock = { now: () => epoch + virtual };
  const queue = new EventQueue();
  const population = drawPopulation(scenario, seed, flows);
  const walkers = population.map(
    (person): Walker => ({
      person,
      state: 'waiting',
      typing: false,
      codes: 0,
      resendsLeft: person.attacker ? (scenario.attackers?.resends ?? 0) : scenario.people.resend.max,
    }),
  );
  const byNumber = new Map(walkers.map((walker) => [walker.person.number, walker]));
  const operators = scenario.operators.map((operator) => ({
    name: operator.name,
    people: 0,
    verified: 0,
    sends: 0,
    cost: 0,
  }));
  const providerTotals = scenario.providers.map((provider) => ({ name: provider.name, sends: 0, cost: 0 }));
  const channelTotals = (['sms', 'whatsapp', 'voice'] as const).map((name) => ({ name, sends: 0, cost: 0 }));
  const timesToVerify: number[] = [];
  const totals = {
    sendsPeople: 0,
    sendsBots: 0,
    costPeople: 0,
    costBots: 0,
    receipts: 0,
    lookups: 0,
    costLookups: 0,
  };
  const ledger = new StepLedger();
  /** Due timers are being carried out; the walkers sent to meanwhile. */
  let inTick = false;
  const sentByTimer: Walker[] = [];
  const withinMs = scenario.report.withinSeconds * 1000;
  let verifiedWithin = 0;
  let receiptIds = 0;
  let inboundIds = 0;
  let verifiedWithoutSends = 0;

  const lookupPrice = (provider: ProviderName) =>
    Math.round((scenario.rates.lookups.find((rate) => rate.provider === provider)?.price ?? 0) * 1e6);
  const sims = await startSimProviders(scenario.providers, mode, clock, {
    dndLookup: options.dndLookup ?? scenario.plan.dndLookup ?? false,
    isDnd: (number) => byNumber.get(number)?.person.dnd ?? false,
    // A lookup is paid like a message: by the person's or bot's side of the bill.
    onLookup: (provider, number) => {
      const cost = lookupPrice(provider);
      totals.lookups += 1;
      if (byNumber.get(number)?.person.attacker === true) totals.costBots += cost;
      else totals.costPeople += cost;
      totals.costLookups += cost;
    },
  });
  try {
    sims.forEach((sim, index) => {
      if (sim.provider.phone === undefined)
        throw new InvalidInputError([
          {
            field: `providers.${index}.name`,
            message: 'names a provider without phone verification (codes by SMS, voice or WhatsApp)',
          },
        ]);
    });
    // The breakers read the virtual clock too: a circuit opened in a run half-opens after virtual time, not real.
    const composed =
      sims.length === 1
        ? sims[0]!.provider
        : withFailover(
            sims.map((sim) => sim.provider),
            { breaker: { clock }, ...(options.router === undefined ? {} : { router: options.router(clock) }) },
          );
    const engine: Verikit = createVerikit({
      provider: observeSends(composed, (phoneNumber, result) => {
        const walker = byNumber.get(phoneNumber);
        if (walker?.unrouted === undefined || walker.unrouted.ids !== undefined) return;
        walker.unrouted.ids = [result.messageId, result.requestId].filter(
          (id): id is string => typeof id === 'string' && id !== '',
        );
      }),
      secret,
      clock,
      logger: silentLogger,
      // Timers run on the virtual clock, when the loop says (below), never on a real interval.
      timers: { pollMs: 0 },
      ...(scenario.engine.policies === undefined ? {} : { policies: scenario.engine.policies }),
      ...guardOf(scenario),
    });
    const at = (delayMs: number, run: () => void | Promise<void>) => queue.push(virtual + Math.max(0, delayMs), run);
    const step = (walker: Walker) => ledger.step(walker.person.number);

    const price = (provider: string, channel: string, operator: number) => {
      const name = operator < 0 ? undefined : scenario.operators[operator]!.name;
      const card =
        scenario.rates.cards.find((c) => c.provider === provider && c.channel === channel && c.operator === name) ??
        scenario.rates.cards.find((c) => c.provider === provider && c.channel === channel && c.operator === undefined);
      return card?.price ?? 0;
    };

    const onMessage = (sim: SimProvider, providerIndex: number, message: FakeMessage) => {
      const to = message.to.startsWith('whatsapp:') ? message.to.slice(9) : message.to;
      const walker = byNumber.get(to);
      const code = message.code ?? codeInText(message.text);
      if (walker === undefined || code === undefined || message.channel === 'ussd') return;
      const { person } = walker;
      // Money in millionths of the currency's unit, whole numbers: sums exact to the unit whatever the order.
      const cost = Math.round(price(sim.name, message.channel, person.operator) * 1e6);
      for (const total of [providerTotals[providerIndex]!, channelTotals.find((c) => c.name === message.channel)!]) {
        total.sends += 1;
        total.cost += cost;
      }
      if (person.attacker) {
        totals.sendsBots += 1;
        totals.costBots += cost;
      } else {
        totals.sendsPeople += 1;
        totals.costPeople += cost;
        if (person.operator >= 0) {
          operators[person.operator]!.sends += 1;
          operators[person.operator]!.cost += cost;
        }
      }
      // A step announced for now opens with its code, even when a pass another event joined sent it before the
      // step's own event ran (events at one virtual ms run in queue order).
      if (walker.nextAt !== undefined && walker.openedAt !== walker.nextAt && clock.now() >= walker.nextAt) {
        walker.openedAt = walker.nextAt;
        step(walker);
      }
      ledger.code(person.number);
      walker.codes += 1;
      walker.firstProvider ??= sim.name;
      if (inTick) sentByTimer.push(walker);
      const fate = carrierFate(scenario, person, message, {
        provider: scenario.providers[providerIndex]!,
        second: virtual / 1000,
      });
      if (fate.delivered) at(fate.arrivesAfterMs, () => codeArrives(walker, code));
      const unrouted: { ids?: readonly string[] } = {};
      walker.unrouted = unrouted;
      const channel = message.channel as Channel;
      if (fate.receiptAfterMs !== undefined && sim.receipts.has(channel))
        at(fate.receiptAfterMs, () => receiptArrives(walker, unrouted, fate.delivered, fate.reason));
    };
    for (const [index, sim] of sims.entries()) sim.onMessage((message) => onMessage(sim, index, message));

    const receiptArrives = async (
      walker: Walker,
      unrouted: { ids?: readonly string[] },
      delivered: boolean,
      reason?: string,
    ) => {
      const messageId = unrouted.ids?.[0];
      if (messageId === undefined) return;
      if (!delivered) step(walker);
      totals.receipts += 1;
      receiptIds += 1;
      // The pass `receive` starts may send other flows' due steps too: those flows are read after it, as after a tick.
      inTick = true;
      await engine
        .receive({
          id: `sim-receipt-${receiptIds}`,
          event: {
            type: 'delivery',
            messageId,
            status: delivered ? 'delivered' : 'undelivered',
            ...(reason === undefined ? {} : { reason }),
          },
        })
        .then(
          async (result) => {
            if (result.view) follow(walker, result.view);
            if (delivered || result.flowId === undefined) return;
            // The fallback a failed delivery made due is sent by the pass `receive` started and did not wait for: join
            // it, then read what the plan does next, so its next send is announced before any other event runs.
            await engine.runDueTimers();
            const view = await engine.get(result.flowId).catch(() => undefined);
            if (view !== undefined) follow(walker, view);
          },
          () => undefined,
        );
      inTick = false;
      for (const other of sentByTimer.splice(0)) {
        if (other === walker) continue;
        const view = other.flowId === undefined ? undefined : await engine.get(other.flowId).catch(() => undefined);
        if (view !== undefined) follow(other, view);
      }
    };

    /**
     * What the plan will send by itself, as the view says (`next`): at that time a step opens, so the send the flow's
     * timer makes then is the step's first code. A second code for it, or a send no view announced, is a double.
     */
    const announce = (walker: Walker, view: FlowView) => {
      const next = view.done ? undefined : view.next?.at;
      if (next === walker.nextAt) return;
      walker.nextAt = next;
      if (next !== undefined)
        at(next - clock.now(), () => {
          if (walker.nextAt === next && walker.openedAt !== next) {
            walker.openedAt = next;
            step(walker);
          }
        });
    };

    /** Reads what a view says about the walker's flow. */
    const follow = (walker: Walker, view: FlowView) => {
      if (view.channel !== undefined) walker.channel = view.channel;
      announce(walker, view);
      if (walker.state !== 'waiting') return;
      if (view.status === 'verified') {
        walker.state = 'verified';
        const took = virtual - walker.startedAt!;
        timesToVerify.push(took);
        if (took <= withinMs) verifiedWithin += 1;
        if (walker.codes === 0) verifiedWithoutSends += 1;
        if (walker.person.operator >= 0) operators[walker.person.operator]!.verified += 1;
      } else if (view.done) walker.state = 'failed';
    };

    const start = async (walker: Walker) => {
      const { person } = walker;
      step(walker);
      if (walker.startedAt === undefined) {
        walker.startedAt = virtual;
        if (!person.attacker) {
          at(drawMs(person, scenario.people.patience), () => giveUp(walker));
          at(drawMs(person, scenario.people.resend.after), () => resendCheck(walker));
        }
      }
      let view: FlowView;
      try {
        view = await engine.start(
          {
            kind: 'phone',
            phoneNumber: person.number,
            channels: [...plan],
            ...(escalate === undefined ? {} : { escalateAfterMs: escalate * 1000 }),
          },
          { client: `client-${person.index}` },
        );
      } catch (error) {
        // A start the engine cannot take at all (a plan it does not know, a channel the provider lacks) is the
        // scenario's mistake, not a refusal to count.
        if (InvalidInputError.isInstance(error) || CapabilityError.isInstance(error)) throw error;
        if (walker.flowId === undefined) walker.state = 'refused';
        else walker.state = 'failed';
        return;
      }
      walker.flowId = view.id;
      follow(walker, view);
      if (view.inbound !== undefined && !person.attacker) {
        // A person who can reach the app's number sends the reference (its view says where), once.
        const inbound = scenario.people.inbound;
        walker.canMessage ??= inbound !== undefined && chance(person.random, inbound.share);
        if (walker.canMessage && inbound !== undefined) {
          const ways = view.inbound.ways;
          const way =
            (person.whatsapp ? ways.find((w) => w.channel === 'whatsapp') : undefined) ??
            ways.find((w) => w.channel === 'sms') ??
            ways[0]!;
          at(drawMs(person, inbound.after), () => sendMessage(walker, way.channel, way.to, way.text));
        }
      }
      if (view.done && walker.state === 'failed' && !person.attacker && walker.resendsLeft > 0) {
        // A send that failed outright: the person tries again from the start, as a page reload would.
        walker.state = 'waiting';
        walker.resendsLeft -= 1;
        at(drawMs(person, scenario.people.resend.after), () => start(walker));
        return;
      }
      if (person.attacker) at((view.resendAvailableAt ?? clock.now()) - clock.now(), () => botResend(walker));
    };

    /** The person's message reaches the provider, which reports it as its signed webhook would (`verikit.receive`). */
    const sendMessage = async (walker: Walker, channel: 'sms' | 'whatsapp', to: string, text: string) => {
      if (walker.state !== 'waiting') return;
      inboundIds += 1;
      const event = { type: 'inbound-message', channel, from: walker.person.number, to, text } as const;
      const result = await engine.receive({ id: `sim-inbound-${inboundIds}`, event }).catch(() => undefined);
      if (result?.view !== undefined) follow(walker, result.view);
    };

    const codeArrives = (walker: Walker, code: string) => {
      if (walker.state !== 'waiting' || walker.person.attacker) return;
      walker.code = code;
      if (walker.typing) return;
      walker.typing = true;
      at(drawMs(walker.person, scenario.people.readAndType), () => submit(walker));
    };

    const submit = async (walker: Walker) => {
      walker.typing = false;
      if (walker.state !== 'waiting' || walker.code === undefined || walker.flowId === undefined) return;
      const { person } = walker;
      const typed = chance(person.random, scenario.people.typo) ? typo(walker.code, person.index) : walker.code;
      let view: FlowView;
      try {
        view = await engine.send(walker.flowId, { type: 'submit-code', code: typed });
      } catch {
        return;
      }
      follow(walker, view);
      if (walker.state === 'waiting' && view.status === 'awaiting-code') {
        walker.typing = true;
        at(drawMs(person, scenario.people.readAndType), () => submit(walker));
      }
    };

    const resendCheck = async (walker: Walker) => {
      const { person } = walker;
      if (walker.state !== 'waiting' || walker.code !== undefined || walker.resendsLeft <= 0) return;
      if (walker.flowId === undefined) return;
      const view = await engine.get(walker.flowId).catch(() => undefined);
      if (view === undefined || view.done) return;
      if (view.resendAvailableAt !== undefined && view.resendAvailableAt > clock.now()) {
        at(view.resendAvailableAt - clock.now(), () => resendCheck(walker));
        return;
      }
      const current = walker.channel === undefined ? -1 : outbound.indexOf(walker.channel);
      const other = chance(person.random, scenario.people.resend.otherChannel) ? outbound[current + 1] : undefined;
      walker.resendsLeft -= 1;
      step(walker);
      const answer = await engine
        .send(walker.flowId, { type: 'resend', ...(other === undefined ? {} : { channel: other }) })
        .catch(() => undefined);
      if (answer !== undefined) follow(walker, answer);
      at(drawMs(person, scenario.people.resend.after), () => resendCheck(walker));
    };

    const botResend = async (walker: Walker) => {
      if (walker.resendsLeft <= 0 || walker.flowId === undefined) return;
      walker.resendsLeft -= 1;
      step(walker);
      const view = await engine.send(walker.flowId, { type: 'resend' }).catch(() => undefined);
      if (view === undefined || view.done) return;
      at((view.resendAvailableAt ?? clock.now()) - clock.now(), () => botResend(walker));
    };

    const giveUp = (walker: Walker) => {
      if (walker.state === 'waiting') walker.state = 'gave-up';
    };

    for (const walker of walkers) {
      if (!walker.person.attacker && walker.person.operator >= 0) operators[walker.person.operator]!.people += 1;
      queue.push(walker.person.arrivesAt, () => start(walker));
    }
    // Every instance polls its due timers every second by default (`timers.pollMs`): the run does the same in virtual
    // time while anything else is to happen, then for a code's lifetime more, so a plan's last send is not cut off.
    let quietSince: number | undefined;
    const tick = async () => {
      inTick = true;
      await engine.runDueTimers();
      inTick = false;
      for (const walker of sentByTimer.splice(0)) {
        const view = walker.flowId === undefined ? undefined : await engine.get(walker.flowId).catch(() => undefined);
        if (view !== undefined) follow(walker, view);
      }
      if (queue.size > 0) quietSince = undefined;
      else quietSince ??= virtual;
      if (quietSince === undefined || virtual - quietSince < engine.policies.codeTtlMs) at(timerPollMs, tick);
    };
    at(timerPollMs, tick);
    for (let event = queue.pop(); event !== undefined; event = queue.pop()) {
      virtual = event.at;
      await event.run();
    }

    const people = walkers.filter((walker) => !walker.person.attacker);
    if (options.onPerson !== undefined)
      for (const walker of people)
        if (walker.person.operator >= 0 && walker.startedAt !== undefined)
          options.onPerson({
            operator: scenario.operators[walker.person.operator]!.name,
            startedAtSecond: walker.startedAt / 1000,
            firstProvider: walker.firstProvider,
            verified: walker.state === 'verified',
          });
    const sorted = timesToVerify.sort((a, b) => a - b);
    return {
      scenario: scenario.name,
      seed,
      flows,
      mode,
      people: people.length,
      attackers: walkers.length - people.length,
      verified: sorted.length,
      verifiedWithin,
      withinSeconds: scenario.report.withinSeconds,
      refused: people.filter((walker) => walker.state === 'refused').length,
      gaveUp: people.filter((walker) => walker.state === 'gave-up').length,
      timeToVerify: { p50: percentile(sorted, 0.5) / 1000, p95: percentile(sorted, 0.95) / 1000 },
      sends: { people: totals.sendsPeople, attackers: totals.sendsBots },
      cost: { people: money(totals.costPeople), attackers: money(totals.costBots), currency: scenario.rates.currency },
      doubleSends: ledger.doubleSends,
      verifiedWithoutSends,
      receipts: totals.receipts,
      lookups: { count: totals.lookups, cost: money(totals.costLookups) },
      byOperator: operators.map((operator) => ({ ...operator, cost: money(operator.cost) })),
      byProvider: providerTotals.map((provider) => ({ ...provider, cost: money(provider.cost) })),
      byChannel: channelTotals.map((channel) => ({ ...channel, cost: money(channel.cost) })),
      costLedger: engine.costs(),
    };
  } finally {
    await Promise.all(sims.map((sim) => sim.close()));
  }
}
