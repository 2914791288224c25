import { z } from 'zod';

// A scenario is data a user writes (YAML or JSON): who starts flows, what their phones and operators do, which
// providers send and at what price, and which plan the engine runs. Every field is checked here, so a mistake
// is an InvalidInputError naming the field (`operators.1.channels.sms.delivery`), never a run that means nothing.

const share = z
  .number({ error: 'must be a number from 0 to 1' })
  .min(0, { error: 'must be a number from 0 to 1' })
  .max(1, { error: 'must be a number from 0 to 1' });
const seconds = z.number({ error: 'must be a number of seconds' }).nonnegative({ error: 'must not be negative' });

/** A duration in seconds: a fixed number, or log-normal through its median and 95th percentile. */
const durationSchema = z.union(
  [
    seconds,
    z
      .strictObject({
        /** The median, in seconds. */
        median: seconds.positive({ error: 'must be above 0' }),
        /** The 95th percentile, in seconds: at least the median. */
        p95: seconds,
      })
      .refine((value) => value.p95 >= value.median, { error: 'p95 must be at least the median', path: ['p95'] }),
  ],
  { error: 'must be a number of seconds or { median, p95 } in seconds' },
);

/** A channel a code travels by. */
const channelSchema = z.literal(['sms', 'voice', 'whatsapp'], { error: 'must be sms, voice or whatsapp' });

/** A step of a plan: a channel a code travels by, or an inbound step where the person sends the reference. */
const planStepSchema = z.literal(['sms', 'voice', 'whatsapp', 'sms-inbound', 'whatsapp-inbound'], {
  error: 'must be sms, voice, whatsapp, sms-inbound or whatsapp-inbound',
});
/** A provider package the simulator drives. */
const providerNameSchema = z.literal(['termii', 'twilio', 'africastalking', 'gateway'], {
  error: 'must be termii, twilio, africastalking or gateway',
});

/** E.164 prefix: `+` and 2 to 12 digits (`+234803`, `+2547`). */
const prefixSchema = z.string().regex(/^\+[1-9]\d{1,11}$/, { error: 'must be + and 2 to 12 digits, such as +234803' });

const receiptSchema = z.strictObject({
  /** Share of the messages the operator reports on (delivered or not); the rest never get a receipt. */
  share,
  /** Time from the message's fate (delivered, or known lost) to its receipt reaching the provider. */
  delay: durationSchema,
});

const channelBehaviourSchema = z.strictObject({
  /** Chance a message that may reach the handset does reach it (before DND, presence, opt-outs). */
  delivery: share,
  /** Time from the provider's send to the handset. */
  delay: durationSchema,
  /** Receipts of this channel on this operator. Default: none. */
  receipt: receiptSchema.optional(),
  /**
   * Per provider, a `delivery` of its own on this operator and channel (its routes into the operator differ); a
   * provider not named has the channel's `delivery`.
   */
  providers: z
    .partialRecord(
      providerNameSchema,
      z.strictObject({
        /** Chance a message of this provider that may reach the handset does reach it. */
        delivery: share,
      }),
    )
    .optional(),
});

const operatorSchema = z.strictObject({
  /** A name for tables (`MTN`, `Airtel`). */
  name: z.string().min(1).max(40),
  /** E.164 prefixes of its numbers; a person's number is one of them followed by random digits. */
  prefixes: z.array(prefixSchema).min(1, { error: 'must name at least one prefix' }),
  /** Its weight among real people's numbers (normalised over the operators). */
  share: z.number({ error: 'must be a number' }).nonnegative(),
  /** Do-Not-Disturb: SMS to a subscriber on DND is dropped unless its sender id is registered with the operator. */
  dnd: z
    .strictObject({
      /** Share of its subscribers on DND. */
      share,
      /**
       * Sender ids the operator delivers to DND subscribers (registered for transactional traffic: what Termii's DND
       * route, once activated on an account, stands for; the simulator's Termii sends codes on the generic route).
       */
      registeredSenders: z.array(z.string().min(1)).default([]),
    })
    .default({ share: 0, registeredSenders: [] }),
  /** Share of its subscribers who have WhatsApp on the number; WhatsApp to the others is never delivered. */
  whatsappPresence: share.default(0),
  /** How each channel behaves on this operator; a channel left out never delivers. */
  channels: z.strictObject({
    /** SMS on this operator. */
    sms: channelBehaviourSchema.optional(),
    /** WhatsApp to this operator's numbers. */
    whatsapp: channelBehaviourSchema.optional(),
    /** Code calls on this operator. */
    voice: channelBehaviourSchema
      .extend({
        /** Chance the person picks up a code call (after `delivery`, which is the call reaching the handset). */
        answer: share.default(1),
      })
      .optional(),
  }),
});

const outageSchema = z
  .strictObject({
    /** Seconds after the run's start when the provider's API stops answering. */
    from: seconds,
    /** Seconds after the run's start when it answers again. */
    to: seconds,
    /** `unavailable`: HTTP 503 to every request; `refused`: connections refused (provably never sent). */
    kind: z.literal(['unavailable', 'refused'], { error: 'must be unavailable or refused' }).default('unavailable'),
  })
  .refine((outage) => outage.to > outage.from, { error: 'to must be after from', path: ['to'] });

const providerSchema = z.strictObject({
  /** Which provider package, driven against its fake. */
  name: providerNameSchema,
  /** The sender id of codes (what DND registration is checked against). Default `Verikit`. */
  sender: z
    .string()
    .regex(/^[A-Za-z0-9]{3,11}$/, { error: 'must be 3 to 11 letters or digits' })
    .default('Verikit'),
  /** Windows when the provider's API fails. */
  outages: z.array(outageSchema).default([]),
  /**
   * The channels whose receipts reach flows through this provider. Default: what the provider package
   * reports today (docs/simulator.md, "Receipts"); naming more models a provider that would.
   */
  receipts: z.array(channelSchema).optional(),
  /**
   * Windows when the provider's routes get worse (it still answers, its messages arrive less often): from `from`
   * (seconds after the run's start) until `to` (default: the end), its delivery on the named `operators` (default:
   * every one) is multiplied by `delivery`.
   */
  degrades: z
    .array(
      z
        .strictObject({
          /** Seconds after the run's start when it begins. */
          from: seconds,
          /** Seconds after the run's start when it ends. Default: never. */
          to: seconds.optional(),
          /** The factor its delivery is multiplied by meanwhile (0.5: half of its messages that would arrive do). */
          delivery: share,
          /** The operators (by name) it applies to. Default: every one. */
          operators: z.array(z.string().min(1)).min(1).optional(),
        })
        .refine((window) => window.to === undefined || window.to > window.from, {
          error: 'to must be after from',
          path: ['to'],
        }),
    )
    .default([]),
});

const rateSchema = z.strictObject({
  /** The provider whose messages this price is for. */
  provider: providerNameSchema,
  /** The channel it is for. */
  channel: channelSchema,
  /** Operator name; absent: every operator. */
  operator: z.string().min(1).optional(),
  /** Price of one message in `rates.currency`. */
  price: z.number({ error: 'must be a number' }).nonnegative(),
});

const peopleSchema = z.strictObject({
  /** From the code reaching the handset to the person submitting it (reading, switching apps, typing). */
  readAndType: durationSchema,
  /** Chance a submission has a typo; the person then types the code again after another `readAndType`. */
  typo: share.default(0),
  /** Time after the start at which a person still without a verified flow gives up. */
  patience: durationSchema,
  /** Chance a person has opted out of SMS from the sender (STOP): their SMS is never delivered. */
  optedOut: share.default(0),
  /** When and how people ask for another code. Default: never. */
  resend: z
    .strictObject({
      /** Time without a code (since the start or the last resend) before the person asks again. */
      after: durationSchema,
      /** Resends a person asks for at most. */
      max: z.number().int().min(0).max(10),
      /** Chance a resend asks for the plan's next channel rather than the same one. */
      otherChannel: share.default(0),
    })
    .default({ after: 60, max: 0, otherChannel: 0 }),
  /**
   * Who can prove their number by sending a message (a plan's inbound steps, docs/flows.md): the `share` of people
   * who can reach WhatsApp or SMS inbound and do, `after` the time from the start to their message arriving. Default:
   * none, so a scenario without it runs as before.
   */
  inbound: z
    .strictObject({
      /** Share of people who can send the reference (reach the app's WhatsApp sender, or its SMS number). */
      share,
      /** Time from the start to the person's message reaching the provider. */
      after: durationSchema,
    })
    .optional(),
});

const attackersSchema = z.strictObject({
  /** Share of all starts that are SMS-pumping bots. */
  share,
  /** Prefixes the bots pump (premium ranges they are paid for); numbers are these followed by random digits. */
  prefixes: z.array(prefixSchema).min(1, { error: 'must name at least one prefix' }),
  /** Resends a bot asks for, each as soon as the flow allows. Bots never submit a code. */
  resends: z.number().int().min(0).max(10).default(4),
});

/** The scenario file's schema: what `parseScenario` checks (docs/simulator.md, "Writing a scenario"). */
export const scenarioSchema = z.strictObject({
  /** Short name for the table. */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,59}$/, { error: 'must be lower-case letters, digits and dashes' }),
  /** What the scenario assumes, in words: where its figures come from and what it leaves out. */
  description: z.string().min(20, { error: 'must say, in at least 20 characters, what the scenario assumes' }),
  /** The seed. Default 1. */
  seed: z.number().int().min(0).max(4294967295).default(1),
  /** Starts in the run (people and bots). */
  flows: z.number().int().min(1).max(10_000_000),
  /** When the flows start. */
  arrivals: z.strictObject({
    /** Starts are spread over this many seconds. */
    overSeconds: seconds.positive({ error: 'must be above 0' }),
    /** Relative rate of starts in equal slices of the window (a daily pattern: 24 weights). Default: even. */
    shape: z.array(z.number().nonnegative()).min(1).optional(),
  }),
  /** The plan every flow starts with: the design under test. */
  plan: z.strictObject({
    /** The flow's channels, in order: the first send goes on the first; resends and fallbacks use the rest. */
    channels: z.array(planStepSchema).min(1).max(5),
    /**
     * An escalating plan: after this many seconds without a correct code (and once the send's cooldown passed), the
     * engine sends on the plan's next channel by itself (`escalateAfterMs`, docs/plans.md). 15 to 900. Default: none.
     */
    escalateAfterSeconds: z.number().int().min(15).max(900).optional(),
    /**
     * A plan that knows the number: each flow whose plan has several channels asks its provider first whether the
     * number can be reached on each (Termii's DND search, `dndLookup`), and leaves out the channels it cannot
     * (docs/plans.md, "Plans that know the number"). Providers without a lookup make none. Default false.
     */
    dndLookup: z.boolean({ error: 'must be true or false' }).optional(),
  }),
  /** What the engine is created with, besides its provider and clock. */
  engine: z
    .strictObject({
      /** `createVerikit({ policies })`: checked by the engine. */
      policies: z.record(z.string(), z.number()).optional(),
      /** `createVerikit({ guard })`: checked by the engine; `false` turns the send guard off. */
      guard: z.union([z.literal(false), z.record(z.string(), z.unknown())]).optional(),
    })
    .default({}),
  /** The providers, in failover order (one: no failover). */
  providers: z
    .array(providerSchema)
    .min(1)
    .max(4)
    .refine((list) => new Set(list.map((provider) => provider.name)).size === list.length, {
      error: 'must not name a provider twice',
    }),
  /** The rate card: the price of each message the fakes sent. */
  rates: z.strictObject({
    /** The currency of every price (`NGN`, `KES`, `USD`). */
    currency: z.string().min(1).max(8),
    /** A price per provider and channel, optionally per operator (which wins over one without). */
    cards: z.array(rateSchema),
    /** The price of one number lookup per provider (`plan.dndLookup`). Default: none priced (0). */
    lookups: z
      .array(
        z.strictObject({
          /** The provider whose lookups this price is for. */
          provider: providerNameSchema,
          /** Price of one lookup in `rates.currency`. */
          price: z.number({ error: 'must be a number' }).nonnegative(),
        }),
      )
      .default([]),
  }),
  /** The operators whose numbers people have, with how each channel behaves on them. */
  operators: z.array(operatorSchema).min(1),
  /** How real people behave. */
  people: peopleSchema,
  /** SMS-pumping bots. Default: none. */
  attackers: attackersSchema.optional(),
  /** What the table reports. */
  report: z
    .strictObject({
      /** The "verified within" column, in seconds after the start. Default 300 (5 minutes). */
      withinSeconds: seconds.positive().default(300),
    })
    .default({ withinSeconds: 300 }),
});

/** A scenario as written (defaults not yet applied). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
/** A checked scenario, defaults applied. */
export type Scenario = z.output<typeof scenarioSchema>;
/** One operator of a scenario. */
export type ScenarioOperator = Scenario['operators'][number];
/** One provider of a scenario. */
export type ScenarioProvider = Scenario['providers'][number];
/** A channel a code travels by. */
export type Channel = 'sms' | 'voice' | 'whatsapp';
/** A step of a plan: a channel, or an inbound step (the person sends the flow's reference). */
export type PlanStep = Channel | 'sms-inbound' | 'whatsapp-inbound';
/** A provider package the simulator drives. */
export type ProviderName = 'termii' | 'twilio' | 'africastalking' | 'gateway';
