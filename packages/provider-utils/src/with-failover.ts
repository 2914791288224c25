import {
  CapabilityError,
  InvalidInputError,
  ProviderRejectedError,
  type CircuitChangeV1,
  type IdentityStepsCapabilityV1,
  type MessagingRequirementV1,
  type PhoneChannel,
  type ProviderCallContextV1,
  type ProviderEventV1,
  type ProviderV1,
  type RawWebhookV1,
  type RouteOutcomeV1,
  ProviderUnavailableError,
} from '@verikit/provider';
import { derivedInput } from './derived-input.js';
import { MemberBreaker, skipped, type FailoverBreakerOptions } from './failover-breaker.js';
import { isProvablyUnsent } from './is-provably-unsent.js';
import { mergedCircuits, ownCircuits } from './merged-circuits.js';
import type { FailoverRouter, RouteChoice } from './routing/failover-router.js';
import { markedRequestId, readRequestId } from './routing/route-marks.js';

/** Options of {@link withFailover}. */
export interface FailoverOptions {
  /** The failover provider's name. Default `failover`. */
  readonly name?: string;
  /**
   * The circuit breaker of each member: after `threshold` consecutive outage failures new calls skip
   * the member until, `halfOpenAfterMs` later, one call probes it. `false` turns breakers off.
   * Default `{ threshold: 5, halfOpenAfterMs: 30_000 }`. Per process unless `shared` is given (`createRedisCircuits`
   * of `@verikit/redis`): then an open, the probe and a close are shared by every instance. `onStateChange` and the
   * provider's `circuits` are told every change (open, half-open, closed) as it happens.
   */
  readonly breaker?: FailoverBreakerOptions | false;
  /**
   * Orders the members for each new flow's first phone send (`createLearningRouter`, docs/routing.md), and is told
   * which member sent it and whether the flow was verified. Pinned rules and the promises below hold as without it:
   * a resend and every check go to the member that sent, and a member is left only when it provably sent nothing.
   */
  readonly router?: FailoverRouter;
}

type Capability = 'phone' | 'sms' | 'whatsapp' | 'ussd' | 'identity' | 'identitySteps';

/** Between a provider's name and its own requestId in the requestIds a failover provider returns. */
const separator = '~';

/**
 * Tries `members` in order for every call, moving to the next only when the error proves the previous
 * one sent nothing (see `isProvablyUnsent`: connection refused, DNS failure, credentials refused, a
 * capability or channel it lacks, an answer that says the call failed: 408, 429, 500, 501, 503). A
 * timeout, a dropped connection, a gateway's 502/504 or a rejection is thrown as it is: it may have
 * followed a send (or the next provider would refuse it too), and a second send is worse than an error.
 *
 * Each member has a circuit breaker (`options.breaker`): after `threshold` consecutive outage failures
 * (5xx, timeouts, unreachable) new calls skip it, unsent, and go to the next member; after
 * `halfOpenAfterMs` one call probes it and a success brings it back. A check always goes to the member
 * that sent the code, open or not. Every change is told to `breaker.onStateChange` and to `provider.circuits`,
 * which the engine logs (`verikit.failover.circuit`) and tells (`verikit.on('circuit-open', …)`).
 *
 * A phone send's requestId names the member that sent it (`twilio~VE…`), so the check goes to that
 * member, on any instance, with nothing stored beside the flow; a resend (`resendOf`) tries that member
 * first. Webhooks are parsed by each member in turn: the first that recognises the body wins.
 *
 * Dial-in is inbound: the user dials one provider's service code, so there is nothing to fail over to. The
 * failover provider's `dialIn` is the first member's that has one, as it is; the others' are not used.
 *
 * Member names must differ. Throws an `InvalidInputError` naming the member otherwise.
 *
 * @example
 * const provider = withFailover([createTermiiProvider(), createTwilioProvider()]);
 */
export function withFailover(members: readonly ProviderV1[], options: FailoverOptions = {}): ProviderV1 {
  if (!Array.isArray(members) || members.length === 0)
    throw new InvalidInputError([{ field: 'providers', message: 'must be a non-empty list of providers' }]);
  const names = new Set<string>();
  members.forEach((member, index) => {
    if (typeof member !== 'object' || member === null || member.specificationVersion !== 'v1') {
      throw new InvalidInputError([{ field: `providers.${index}`, message: 'must be a provider of specification v1' }]);
    }
    if (names.has(member.name))
      throw new InvalidInputError([
        { field: `providers.${index}.name`, message: 'must differ from the other providers’ names' },
      ]);
    names.add(member.name);
  });
  const name = options.name ?? 'failover';
  const router = options.router;
  if (
    router !== undefined &&
    (typeof router !== 'object' ||
      router === null ||
      typeof router.choose !== 'function' ||
      typeof router.record !== 'function')
  )
    throw new InvalidInputError([{ field: 'router', message: 'must be a router such as createLearningRouter()' }]);
  if (typeof name !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(name)) {
    throw new InvalidInputError([{ field: 'name', message: 'must be 1 to 32 lowercase letters, digits or dashes' }]);
  }
  const having = (capability: Capability) => members.filter((member) => member[capability] !== undefined);
  const own = ownCircuits(new Set());
  const breakers = breakersOf(name, members, options.breaker, own.tell);

  /**
   * Runs `call` on each candidate in turn while the failure proves nothing was sent, skipping a member
   * whose circuit is open; when every circuit is open, nothing is sent and the call fails unavailable.
   */
  async function attempt<T>(
    capability: Capability,
    candidates: readonly ProviderV1[],
    context: ProviderCallContextV1,
    call: (member: ProviderV1) => Promise<T>,
    guarded = true,
  ): Promise<{ result: T; member: ProviderV1 }> {
    if (candidates.length === 0) throw new CapabilityError(capability, name);
    let index = 0;
    for (;;) {
      const member = candidates[index]!;
      const next = candidates[index + 1];
      try {
        const breaker = guarded ? breakers.get(member) : undefined;
        const result =
          breaker === undefined ? await call(member) : await breaker.run(() => call(member), context.logger);
        if (result !== skipped) return { result, member };
        if (next === undefined) {
          throw new ProviderUnavailableError(
            `${name}: every provider able to do this is out of rotation (circuit open)`,
            {
              requestSent: false,
            },
          );
        }
        index += 1;
      } catch (error) {
        if (next === undefined || !isProvablyUnsent(error)) throw error;
        context.logger.warn('verikit.failover.next', {
          capability,
          from: member.name,
          to: next.name,
          error: typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined,
        });
        index += 1;
      }
    }
  }

  const provider: { -readonly [K in keyof ProviderV1]: ProviderV1[K] } = { specificationVersion: 'v1', name };
  const circuits = mergedCircuits([breakers.size > 0 ? own.circuits : undefined, ...members]);
  if (circuits !== undefined) provider.circuits = circuits;

  const phones = having('phone');
  if (phones.length > 0) {
    const channels = Object.freeze([...new Set(phones.flatMap((member) => member.phone!.channels))] as PhoneChannel[]);
    const byName = new Map(phones.map((member) => [member.name, member]));
    const split = (requestId: string) => {
      const marks = readRequestId(requestId);
      const member = marks === undefined ? undefined : byName.get(marks.member);
      return member === undefined ? { member, inner: requestId } : { ...marks, member };
    };
    /** Tells the router an outcome, never failing the call for it. */
    const record = (
      route: string | undefined,
      member: ProviderV1,
      outcome: RouteOutcomeV1,
      context: Pick<ProviderCallContextV1, 'logger'>,
      at?: number,
    ) => {
      if (router === undefined || route === undefined) return;
      router.record(route, member.name, outcome, at).catch((error: unknown) =>
        context.logger.warn('verikit.routing.count-failed', {
          route,
          member: member.name,
          outcome,
          error: typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined,
        }),
      );
    };
    provider.phone = {
      channels,
      customCode: phones.some((member) => member.phone!.customCode === true),
      async send(input, context) {
        // Malformed input is the first member's to refuse, with its own InvalidInputError.
        if (typeof input !== 'object' || input === null) return phones[0]!.phone!.send(input, context);
        const { resendOf, ...rest } = input;
        const previous = resendOf === undefined ? undefined : split(resendOf);
        let choice: RouteChoice | undefined;
        if (router !== undefined && previous?.member === undefined) {
          const able = phones.filter((member) => member.phone!.channels.includes(input.channel));
          if (able.length > 0) {
            choice = await router.choose({
              phoneNumber: input.phoneNumber,
              channel: input.channel,
              members: able.map((member) => member.name),
            });
            if (
              typeof choice?.route !== 'string' ||
              !/^[\w:+.-]{1,64}$/.test(choice.route) ||
              !Array.isArray(choice.order)
            )
              throw new TypeError(`${name}: the router answered no route and order`);
            context.logger.info('verikit.routing.choice', {
              route: choice.route,
              order: choice.order,
              why: choice.why,
            });
            if (choice.order.length === 0)
              throw new ProviderUnavailableError(`${name}: a pinned rule leaves no provider for this send`, {
                requestSent: false,
              });
          }
        }
        const routed =
          choice === undefined
            ? phones
            : choice.order.flatMap((chosen) => phones.filter((member) => member.name === chosen));
        const ordered =
          previous?.member === undefined
            ? routed
            : [previous.member, ...phones.filter((member) => member !== previous.member)];
        const able = ordered.filter(
          (member) =>
            member.phone!.channels.includes(input.channel) &&
            (input.code === undefined || member.phone!.customCode === true),
        );
        if (able.length === 0 && (['sms', 'voice', 'whatsapp'] as unknown[]).includes(input.channel)) {
          const needsCode =
            input.code !== undefined && ordered.some((member) => member.phone!.channels.includes(input.channel));
          throw needsCode
            ? new CapabilityError('phone verification with a code we generate', name, { field: 'code' })
            : new CapabilityError(`phone verification by ${input.channel}`, name, { field: 'channel' });
        }
        const candidates = able.length > 0 ? able : ordered.slice(0, 1);
        const { result, member } = await attempt('phone', candidates, context, (each) =>
          each.phone!.send(
            derivedInput(input, each === previous?.member ? { ...rest, resendOf: previous.inner } : rest),
            context,
          ),
        );
        // A routed flow keeps its route in every requestId (a resend's too), so its check can tell the router.
        const same = previous?.member === member;
        const route = choice?.route ?? (same ? previous.route : undefined);
        const at = choice === undefined ? (same ? previous.at : undefined) : choice.at;
        if (choice !== undefined) record(route, member, 'sent', context);
        // The message id is the member's own: its delivery receipts name it, so it reaches the flow as it is.
        return {
          requestId: markedRequestId({ member: member.name, route, at }, result.requestId),
          ...(result.messageId === undefined ? {} : { messageId: result.messageId }),
          sentBy: result.sentBy ?? member.name,
        };
      },
      async check(input, context) {
        const { member, inner, route, at } = split(input?.requestId);
        if (member === undefined) {
          // A requestId from before failover was configured: one of the members made it, most likely the first.
          // Only that member knows the code, so no breaker stands in the way (as for every check).
          if (typeof input?.requestId === 'string' && !input.requestId.includes(separator)) {
            const checked = await attempt('phone', phones, context, (each) => each.phone!.check(input, context), false);
            return checked.result;
          }
          throw new ProviderRejectedError(`${name} phone.check: the requestId names no provider of this failover`);
        }
        const checked = await member.phone!.check(derivedInput(input, { ...input, requestId: inner }), context);
        if (checked.valid) record(route, member, 'verified', context, at);
        return checked;
      },
      // Receipts the engine committed count for the route that sent (with a router only).
      ...(router === undefined
        ? {}
        : {
            // A flow counts once, as it is sent once: when its first code arrived.
            async delivered(input, context) {
              const { member, route, at } = split(input?.requestId);
              if (member !== undefined && input.sends === 1) record(route, member, 'delivered', context, at);
            },
          }),
    };
  }

  const smsMembers = having('sms');
  if (smsMembers.length > 0) {
    const requires = [
      ...new Set(smsMembers.flatMap((member) => member.sms!.requires ?? [])),
    ] as MessagingRequirementV1[];
    provider.sms = {
      ...(requires.length > 0 ? { requires: Object.freeze(requires) } : {}),
      send: async (input, context) =>
        (await attempt('sms', smsMembers, context, (member) => member.sms!.send(input, context))).result,
    };
  }
  const whatsAppMembers = having('whatsapp');
  if (whatsAppMembers.length > 0) {
    provider.whatsapp = {
      send: async (input, context) =>
        (await attempt('whatsapp', whatsAppMembers, context, (member) => member.whatsapp!.send(input, context))).result,
    };
  }
  const ussdMembers = having('ussd');
  if (ussdMembers.length > 0) {
    provider.ussd = {
      initiate: async (input, context) =>
        (await attempt('ussd', ussdMembers, context, (member) => member.ussd!.initiate(input, context))).result,
    };
  }
  const identityMembers = having('identity');
  if (identityMembers.length > 0) {
    provider.identity = {
      types: Object.freeze([...new Set(identityMembers.flatMap((member) => member.identity!.types))]),
      async sendOtp(input, context) {
        const candidates = identityMembers.filter((member) => member.identity!.types.includes(input?.idType));
        if (candidates.length === 0)
          throw new CapabilityError(`${String(input?.idType).slice(0, 8)} verification`, name, { field: 'idType' });
        await attempt('identity', candidates, context, (member) => member.identity!.sendOtp(input, context));
      },
    };
  }
  const steps = identityStepsOf(name, having('identitySteps'), attempt);
  if (steps !== undefined) provider.identitySteps = steps;
  // Inbound: the code shown to users is one provider's, and its sessions come to that provider's parser.
  const dialIn = members.find((member) => member.dialIn !== undefined)?.dialIn;
  if (dialIn !== undefined) provider.dialIn = dialIn;
  // The numbers users send to are one provider's too, and its webhook brings their messages.
  const inbound = members.find((member) => member.inbound !== undefined)?.inbound;
  if (inbound !== undefined) provider.inbound = inbound;
  const parsers = members.filter((member) => member.webhooks !== undefined);
  if (parsers.length > 0) provider.webhooks = { parse: (webhook) => parseWithFirst(parsers, webhook) };
  return Object.freeze(provider);
}

type Attempt = <T>(
  capability: Capability,
  candidates: readonly ProviderV1[],
  context: ProviderCallContextV1,
  call: (member: ProviderV1) => Promise<T>,
  guarded?: boolean,
) => Promise<{ result: T; member: ProviderV1 }>;

/**
 * The identity steps of the members, each tried in order on the messaging rules: a member that provably received
 * nothing (5xx but 502/504, refused connection, open circuit) hands over to the next; one that may have received the
 * request (a timeout, a reset, a 502/504) is not repeated elsewhere, so a paid lookup is charged once. Each answer
 * names the member (`by`); a consent reference names it too (`qoreid~…`), so its status is asked of that member.
 */
function identityStepsOf(
  name: string,
  members: readonly ProviderV1[],
  attempt: Attempt,
): IdentityStepsCapabilityV1 | undefined {
  if (members.length === 0) return undefined;
  const able = (step: 'match' | 'consent' | 'face', idType: unknown) => {
    const found = members.filter(
      (member) => member.identitySteps![step] !== undefined && member.identitySteps!.types.includes(idType as never),
    );
    if (found.length === 0)
      throw new CapabilityError(`${String(idType).slice(0, 8)} ${step === 'face' ? 'face match' : step}`, name, {
        field: 'steps',
      });
    return found;
  };
  const byName = new Map(members.map((member) => [member.name, member]));
  const steps: { -readonly [K in keyof IdentityStepsCapabilityV1]: IdentityStepsCapabilityV1[K] } = {
    types: Object.freeze([...new Set(members.flatMap((member) => member.identitySteps!.types))]),
    virtualNin: members.some((member) => member.identitySteps!.virtualNin === true),
    matchFields: Object.freeze([...new Set(members.flatMap((member) => member.identitySteps!.matchFields ?? []))]),
  };
  if (members.some((member) => member.identitySteps!.match !== undefined))
    steps.match = async (input, context) => {
      const { result, member } = await attempt('identitySteps', able('match', input?.idType), context, (each) =>
        each.identitySteps!.match!(input, context),
      );
      return { ...result, by: member.name } as typeof result;
    };
  if (members.some((member) => member.identitySteps!.face !== undefined))
    steps.face = async (input, context) => {
      const { result, member } = await attempt('identitySteps', able('face', input?.idType), context, (each) =>
        each.identitySteps!.face!(input, context),
      );
      return { ...result, by: member.name } as typeof result;
    };
  if (members.some((member) => member.identitySteps!.consent !== undefined))
    steps.consent = {
      async request(input, context) {
        const { result, member } = await attempt('identitySteps', able('consent', input?.idType), context, (each) =>
          each.identitySteps!.consent!.request(input, context),
        );
        return { ...result, reference: `${member.name}${separator}${result.reference}`, by: member.name };
      },
      async status(input, context) {
        const reference = typeof input?.reference === 'string' ? input.reference : '';
        const at = reference.indexOf(separator);
        const member = at > 0 ? byName.get(reference.slice(0, at)) : undefined;
        if (member?.identitySteps?.consent === undefined)
          throw new ProviderRejectedError(`${name} consent status: the reference names no provider of this failover`);
        // Only the member that made the request knows it: no breaker stands in the way, as for a code check.
        const answer = await member.identitySteps.consent.status({ reference: reference.slice(at + 1) }, context);
        return { ...answer, by: member.name } as typeof answer;
      },
    };
  return Object.freeze(steps);
}

/**
 * A breaker per member, or none when `options` is `false`; the options checked first. With `shared`, each breaker
 * follows its member's shared circuit from now on.
 */
function breakersOf(
  group: string,
  members: readonly ProviderV1[],
  options: FailoverBreakerOptions | false | undefined,
  tell: (change: CircuitChangeV1) => void,
): ReadonlyMap<ProviderV1, MemberBreaker> {
  if (options === false) return new Map();
  if (options !== undefined && (typeof options !== 'object' || options === null))
    throw new InvalidInputError([{ field: 'breaker', message: 'must be an object or false' }]);
  const given = (options ?? {}) as Record<string, unknown>;
  if (given.onStateChange !== undefined && typeof given.onStateChange !== 'function')
    throw new InvalidInputError([{ field: 'breaker.onStateChange', message: 'must be a function' }]);
  const shared = given.shared as FailoverBreakerOptions['shared'];
  if (
    shared !== undefined &&
    (typeof shared !== 'object' ||
      shared === null ||
      !(['follow', 'markOpen', 'claimProbe', 'markClosed'] as const).every(
        (method) => typeof shared[method] === 'function',
      ))
  )
    throw new InvalidInputError([
      { field: 'breaker.shared', message: 'must be shared circuits such as createRedisCircuits({ store })' },
    ]);
  const clock = given.clock as FailoverBreakerOptions['clock'];
  if (clock !== undefined && (typeof clock !== 'object' || clock === null || typeof clock.now !== 'function'))
    throw new InvalidInputError([{ field: 'breaker.clock', message: 'must be an object with a now() function' }]);
  const limits = { threshold: 1000, halfOpenAfterMs: 86_400_000 } as const;
  for (const [field, max] of Object.entries(limits)) {
    const value = given[field];
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1 || (value as number) > max))
      throw new InvalidInputError([{ field: `breaker.${field}`, message: `must be a whole number from 1 to ${max}` }]);
  }
  const onStateChange = options?.onStateChange;
  const told = (change: CircuitChangeV1) => {
    try {
      onStateChange?.(change);
    } catch {
      // The app's listener must not change what the breaker does.
    }
    tell(change);
  };
  const breakers = new Map(
    members.map((member) => [
      member,
      new MemberBreaker({
        group,
        member: member.name,
        threshold: options?.threshold ?? 5,
        halfOpenAfterMs: options?.halfOpenAfterMs ?? 30_000,
        shared,
        now: clock === undefined ? Date.now : () => clock.now(),
        tell: told,
      }),
    ]),
  );
  if (shared !== undefined) {
    const byName = new Map(members.map((member) => [member.name, breakers.get(member)!]));
    shared.follow(group, [...byName.keys()], (member, state) => byName.get(member)?.adopt(state));
  }
  return breakers;
}

/** The first member's event for a body; `null` when every member ignores it; the first error when all refuse it. */
function parseWithFirst(members: readonly ProviderV1[], webhook: RawWebhookV1): ProviderEventV1 | null {
  let firstError: unknown;
  let ignored = false;
  for (const member of members) {
    try {
      const event = member.webhooks!.parse(webhook);
      if (event !== null) return event;
      ignored = true;
    } catch (error) {
      firstError ??= error;
    }
  }
  if (ignored) return null;
  throw firstError;
}
