import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors/invalid-input-error.js';
import { isParsedV1, markParsedV1, parseProviderInputV1 } from './parsed-input-v1.js';
import { phoneSendInputSchemaV1 } from './phone-capability-v1.js';
import { smsSendInputSchemaV1 } from './sms-capability-v1.js';

describe('parseProviderInputV1', () => {
  it('parses an unmarked input: a direct caller gets an InvalidInputError naming the field, never the value', () => {
    const call = () => parseProviderInputV1(smsSendInputSchemaV1, { to: '+2348012345678', message: '' });
    expect(call).toThrow(InvalidInputError);
    expect(call).toThrow('message must not be empty');
    expect(parseProviderInputV1(smsSendInputSchemaV1, { to: '+234 801 234 5678', message: 'hi' })).toEqual({
      to: '+2348012345678',
      message: 'hi',
    });
  });

  it('takes a marked input as it is, without parsing it again (the engine parsed it at its edge)', () => {
    // Not E.164: a parse would rewrite it, so an input returned unchanged was not parsed.
    const marked = markParsedV1({ phoneNumber: '+234 801 234 5678', channel: 'sms' as const });
    expect(isParsedV1(marked)).toBe(true);
    expect(parseProviderInputV1(phoneSendInputSchemaV1, marked)).toBe(marked);
  });

  it('freezes what it marks, so a marked input cannot change after the parse; a copy is unmarked', () => {
    const marked = markParsedV1({ to: '+2348012345678', message: 'hi' });
    expect(Object.isFrozen(marked)).toBe(true);
    expect(isParsedV1({ ...marked })).toBe(false);
    expect(() => parseProviderInputV1(smsSendInputSchemaV1, { ...marked, to: 'nope' })).toThrow(InvalidInputError);
  });
});
