import { InvalidInputError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { inputSchemasFor, type ParsedStartInput } from '../inputs/inputs.js';
import { setup } from './engine.fixtures.js';
import { StartInputs } from './start-flow.js';

/** The engine's start schema (default country NG), counting the inputs it parses. */
function counting() {
  const schema = inputSchemasFor('NG').start;
  let parses = 0;
  const inputs = new StartInputs(
    schema.transform((input) => {
      parses += 1;
      return input as ParsedStartInput;
    }),
  );
  return { inputs, parses: () => parses };
}

describe('StartInputs', () => {
  it('parses an input once: what parse returned goes through of as it is', () => {
    const { inputs, parses } = counting();
    const parsed = inputs.parse({ kind: 'phone', phoneNumber: '0803 123 4567', channels: ['sms'] });
    expect(parsed).toEqual({ kind: 'phone', phoneNumber: '+2348031234567', channels: ['sms'] });
    expect(inputs.of(parsed)).toBe(parsed);
    expect(parses()).toBe(1);
  });

  it('parses any other object, even one equal to a parsed input', () => {
    const { inputs, parses } = counting();
    const parsed = inputs.parse({ kind: 'ussd', phoneNumber: '+2348031234567' });
    expect(inputs.of({ ...parsed })).toEqual(parsed);
    expect(parses()).toBe(2);
    expect(() => inputs.of({ ...parsed, phoneNumber: '12' })).toThrow(InvalidInputError);
  });

  it('freezes what it parsed, so nothing between parse and start changes what was checked', () => {
    const { inputs } = counting();
    const parsed = inputs.parse({ kind: 'phone', phoneNumber: '+2348031234567', channels: ['sms', 'voice'] });
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(() => {
      (parsed as { phoneNumber: string }).phoneNumber = '+2348000000000';
    }).toThrow(TypeError);
    expect(() => (parsed as { channels: string[] }).channels.push('whatsapp')).toThrow(TypeError);
  });

  it("is the engine's: verikit.start takes parseStartInput's result, and checks any other input itself", async () => {
    const { verikit, provider } = setup({ defaultCountry: 'NG' });
    const parsed = verikit.parseStartInput({ kind: 'phone', phoneNumber: '0803 123 4567' });
    await expect(verikit.start(parsed)).resolves.toMatchObject({ status: 'awaiting-code' });
    expect(provider.calls.map((call) => [call.operation, call.input])).toEqual([
      ['phone.send', expect.objectContaining({ phoneNumber: '+2348031234567' })],
    ]);
    await expect(verikit.start({ kind: 'phone', phoneNumber: '12' })).rejects.toThrow(InvalidInputError);
  });
});
