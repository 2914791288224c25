import { InvalidInputError, type PhoneChannel } from '@verikit/provider';

/**
 * A rule that always wins over what the router learned. It applies to a send whose number starts with `prefix`
 * (absent: every number) and whose channel is `channel` (absent: every channel).
 */
export interface RoutePin {
  /** E.164 prefix the rule is for (`+234`, `+234805`). Absent: every number. */
  readonly prefix?: string;
  /** The channel the rule is for. Absent: every channel. */
  readonly channel?: PhoneChannel;
  /** Only these members, in this order: nothing is learned or sampled for such a send. */
  readonly use?: readonly string[];
  /** These members are never used for such a send. */
  readonly never?: readonly string[];
}

const channels = ['sms', 'voice', 'whatsapp'];

/** Checks pins as given: an `InvalidInputError` naming the field otherwise. */
export function checkPins(pins: unknown): readonly RoutePin[] {
  if (pins === undefined) return [];
  if (!Array.isArray(pins)) throw new InvalidInputError([{ field: 'pins', message: 'must be a list of rules' }]);
  pins.forEach((pin: unknown, index) => {
    const field = `pins.${index}`;
    if (typeof pin !== 'object' || pin === null) throw new InvalidInputError([{ field, message: 'must be an object' }]);
    const { prefix, channel, use, never, ...rest } = pin as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new InvalidInputError([{ field, message: `has unknown field(s): ${unknown.join(', ').slice(0, 80)}` }]);
    if (prefix !== undefined && (typeof prefix !== 'string' || !/^\+[1-9]\d{0,11}$/.test(prefix)))
      throw new InvalidInputError([
        { field: `${field}.prefix`, message: 'must be + and 1 to 12 digits, such as +234805' },
      ]);
    if (channel !== undefined && !channels.includes(channel as string))
      throw new InvalidInputError([{ field: `${field}.channel`, message: 'must be sms, voice or whatsapp' }]);
    if (use === undefined && never === undefined)
      throw new InvalidInputError([{ field, message: 'must give use or never' }]);
    for (const [name, list] of [
      ['use', use],
      ['never', never],
    ] as const) {
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length === 0 || list.some((member) => typeof member !== 'string'))
        throw new InvalidInputError([
          { field: `${field}.${name}`, message: 'must be a non-empty list of provider names' },
        ]);
    }
  });
  return pins as readonly RoutePin[];
}

/** What the pins say of a send: the members left, and the rule that fixed their order (if one did). */
export function applyPins(
  pins: readonly RoutePin[],
  phoneNumber: string,
  channel: PhoneChannel,
  members: readonly string[],
): { members: readonly string[]; fixedBy?: number } {
  let left = members;
  for (const [index, pin] of pins.entries()) {
    if (pin.prefix !== undefined && !phoneNumber.startsWith(pin.prefix)) continue;
    if (pin.channel !== undefined && pin.channel !== channel) continue;
    if (pin.never !== undefined) left = left.filter((member) => !pin.never!.includes(member));
    if (pin.use !== undefined) return { members: pin.use.filter((member) => left.includes(member)), fixedBy: index };
  }
  return { members: left };
}
