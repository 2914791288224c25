import { fromMicros, type PricedSend } from './rate-card.js';

/** One line of the cost ledger: the sends of one provider, channel and country, and what they cost. */
export interface CostLine {
  /** Who sent (the flow's `sentBy`), or `unknown`. */
  readonly provider: string;
  /** `sms`, `voice` or `whatsapp`. */
  readonly channel: string;
  /** ISO 3166-1 alpha-2, or `unknown` for numbers of no country. */
  readonly country: string;
  /** Sends that went out. */
  readonly sends: number;
  /** In units of the card's currency, exact to the millionth. */
  readonly cost: number;
  /** Sends no row of the rate card priced (counted at 0). */
  readonly unpriced: number;
}

/** What this engine's sends cost so far (`verikit.costs()`): lines per provider, channel and country, and the total. */
export interface CostReport {
  /** The rate card's currency. */
  readonly currency: string;
  /** Sends that went out, in all. */
  readonly sends: number;
  /** In units of the currency, exact to the millionth. */
  readonly total: number;
  /** Per provider, channel and country, sorted. */
  readonly lines: readonly CostLine[];
}

interface Line {
  provider: string;
  channel: string;
  country: string;
  sends: number;
  micros: number;
  unpriced: number;
}

/**
 * The cost ledger: every send this engine made, priced when it went out, summed in whole millionths of the
 * currency (so totals are exact whatever the order). Per process: instances on one store each keep their own, and
 * the metric `verikit.send.cost` adds them up where telemetry is on.
 */
export class CostLedger {
  readonly #currency: string;
  readonly #lines = new Map<string, Line>();

  constructor(currency: string) {
    this.#currency = currency;
  }

  /** Records one send and its price in millionths (undefined: no row of the card priced it). */
  add(send: PricedSend, micros: number | undefined): void {
    const provider = send.provider ?? 'unknown';
    const channel = send.channel ?? 'unknown';
    const country = send.country ?? 'unknown';
    const key = `${provider}|${channel}|${country}`;
    let line = this.#lines.get(key);
    if (line === undefined) {
      line = { provider, channel, country, sends: 0, micros: 0, unpriced: 0 };
      this.#lines.set(key, line);
    }
    line.sends += 1;
    if (micros === undefined) line.unpriced += 1;
    else line.micros += micros;
  }

  /** The ledger as it stands, lines sorted by provider, channel and country. */
  report(): CostReport {
    const lines = [...this.#lines.values()]
      .sort((a, b) =>
        `${a.provider}|${a.channel}|${a.country}`.localeCompare(`${b.provider}|${b.channel}|${b.country}`),
      )
      .map(
        (line): CostLine => ({
          provider: line.provider,
          channel: line.channel,
          country: line.country,
          sends: line.sends,
          cost: fromMicros(line.micros),
          unpriced: line.unpriced,
        }),
      );
    let micros = 0;
    let sends = 0;
    for (const line of this.#lines.values()) {
      micros += line.micros;
      sends += line.sends;
    }
    return { currency: this.#currency, sends, total: fromMicros(micros), lines };
  }
}
