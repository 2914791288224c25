import { z } from 'zod';

/** The channels a send is priced on. */
export type PricedChannel = 'sms' | 'voice' | 'whatsapp';

/**
 * One price of a rate card: what one send costs, in the card's currency, for the provider, channel and country it
 * names. A field left out matches any: `{ channel: 'sms', price: 4.5 }` prices every SMS the rows that name more
 * do not. The row that names the most fields wins; among equals, the first.
 */
export interface SendPrice {
  /** The provider's `name` (`termii`, `twilio`), as the flow records who sent its code. */
  readonly provider?: string;
  /** The channel the send went on. */
  readonly channel?: PricedChannel;
  /** ISO 3166-1 alpha-2 (`NG`). */
  readonly country?: string;
  /** The price of one send, in units of the card's currency (`4.5`): at most 6 decimals count. */
  readonly price: number;
}

/** What sends cost (docs/abuse.md, "Cost and budget"): the prices the ledger and the budget use. */
export interface RateCard {
  /** ISO 4217 (`NGN`, `USD`): one currency per card, so every total adds like with like. */
  readonly currency: string;
  /** The prices, most specific row first or not: the row naming the most fields wins. */
  readonly prices: readonly SendPrice[];
}

/** What the guard knows of a send it prices. */
export interface PricedSend {
  readonly provider: string | undefined;
  readonly channel: string | undefined;
  readonly country: string | undefined;
}

const price = z.strictObject({
  provider: z.string({ error: "must be a provider's name such as termii" }).min(1).max(100).optional(),
  channel: z.enum(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' }).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, { error: 'must be a country code such as NG' })
    .optional(),
  price: z
    .number({ error: 'must be a price of 0 or more, such as 4.5' })
    .min(0, { error: 'must be 0 or more' })
    .max(1_000_000, { error: 'must be at most 1,000,000' }),
});

/** The rate card's schema, for the guard's options. */
export const rateCardSchema = z.strictObject(
  {
    currency: z.string().regex(/^[A-Z]{3}$/, { error: 'must be an ISO 4217 currency code such as NGN' }),
    prices: z.array(price, { error: 'must be a list of { provider?, channel?, country?, price }' }).min(1).max(10_000),
  },
  { error: 'must be { currency, prices }' },
);

/** Money in millionths of the currency's unit, as whole numbers: totals are exact to the unit in any order. */
function toMicros(units: number): number {
  return Math.round(units * 1e6);
}

/** Millionths back to units. */
export function fromMicros(micros: number): number {
  return micros / 1e6;
}

/**
 * Prices sends from a rate card: the most specific row that matches. Sends no row matches cost 0 (and are counted
 * as unpriced, so a gap in the card shows).
 */
export class RatePricer {
  readonly currency: string;
  readonly #rows: ReadonlyArray<SendPrice & { micros: number; weight: number }>;
  readonly #memo = new Map<string, number | undefined>();
  /** The last ceiling asked for: a send's budgets (hourly, daily, its country's) ask for the same one in a row. */
  #lastCeiling: { channel: string | undefined; country: string | undefined; micros: number } | undefined;

  constructor(card: RateCard) {
    this.currency = card.currency;
    this.#rows = card.prices.map((row) => ({
      ...row,
      micros: toMicros(row.price),
      weight:
        Number(row.provider !== undefined) + Number(row.channel !== undefined) + Number(row.country !== undefined),
    }));
  }

  /** The price of one send in millionths, or undefined when no row matches. */
  microsOf(send: PricedSend): number | undefined {
    const key = `${send.provider ?? ''}|${send.channel ?? ''}|${send.country ?? ''}`;
    if (this.#memo.has(key)) return this.#memo.get(key);
    let best: { micros: number; weight: number } | undefined;
    for (const row of this.#rows) {
      if (row.provider !== undefined && row.provider !== send.provider) continue;
      if (row.channel !== undefined && row.channel !== send.channel) continue;
      if (row.country !== undefined && row.country !== send.country) continue;
      if (best === undefined || row.weight > best.weight) best = row;
    }
    if (this.#memo.size > 10_000) this.#memo.clear();
    this.#memo.set(key, best?.micros);
    return best?.micros;
  }

  /**
   * What a send about to be made may cost, before the provider is known (a composition chooses it when it sends):
   * the highest price among the rows that may apply to its channel and country, so a budget is never overrun by
   * a cheaper guess.
   */
  ceilingOf(channel: string | undefined, country: string | undefined): number {
    const last = this.#lastCeiling;
    if (last !== undefined && last.channel === channel && last.country === country) return last.micros;
    const micros = this.#ceilingOf(channel, country);
    this.#lastCeiling = { channel, country, micros };
    return micros;
  }

  #ceilingOf(channel: string | undefined, country: string | undefined): number {
    const key = `ceiling|${channel ?? ''}|${country ?? ''}`;
    const known = this.#memo.get(key);
    if (known !== undefined) return known;
    let ceiling = 0;
    for (const row of this.#rows) {
      if (row.channel !== undefined && channel !== undefined && row.channel !== channel) continue;
      if (row.country !== undefined && row.country !== country) continue;
      ceiling = Math.max(ceiling, row.micros);
    }
    this.#memo.set(key, ceiling);
    return ceiling;
  }
}
