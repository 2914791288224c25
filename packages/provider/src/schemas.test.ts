import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidInputError } from './errors/invalid-input-error.js';
import { phoneSendInputSchemaV1 } from './provider/v1/phone-capability-v1.js';
import { smsSendInputSchemaV1 } from './provider/v1/sms-capability-v1.js';
import {
  isParsedV1,
  markParsedV1,
  parseInput,
  parseProviderInputV1,
  phoneNumberSchema,
  phoneNumberSchemaFor,
} from './schemas.js';

function issuesOf(schema: z.ZodType, input: unknown): Array<{ field: string; message: string; messageId?: string }> {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (InvalidInputError.isInstance(error)) return [...error.issues];
    throw error;
  }
  throw new Error('expected an InvalidInputError');
}

// Finding 11: zod 4 leaves `issue.input` out, so every value of the wrong type was reported as "is required".
describe('parseInput: a missing field is required, a field of the wrong type says the type', () => {
  const schema = z.strictObject({
    name: z.string({ error: 'must be a string' }),
    count: z.number(),
    nested: z.object({ flag: z.boolean() }).optional(),
    list: z.array(z.string()).optional(),
  });

  it('names what is missing as required, and what is of the wrong type by its type', () => {
    expect(issuesOf(schema, { count: 1 })).toEqual([{ field: 'name', message: 'is required' }]);
    expect(issuesOf(schema, { name: 'a', count: undefined })).toEqual([{ field: 'count', message: 'is required' }]);
    expect(issuesOf(schema, { name: 5, count: '1', nested: { flag: 'yes' }, list: 'a' })).toEqual([
      { field: 'name', message: 'must be a string' },
      { field: 'count', message: 'must be a number' },
      { field: 'nested.flag', message: 'must be a boolean' },
      { field: 'list', message: 'must be a list' },
    ]);
    expect(issuesOf(schema, { name: null, count: 1, nested: 'x' })).toEqual([
      { field: 'name', message: 'must be a string' },
      { field: 'nested', message: 'must be an object' },
    ]);
  });

  it('a phone number issue carries its message id, on the issue and on the error', () => {
    const error = (() => {
      try {
        parseInput(z.object({ to: phoneNumberSchemaFor({ use: 'sms' }) }), { to: '+234 201 234 5678' });
      } catch (caught) {
        return caught as InvalidInputError;
      }
      throw new Error('expected a refusal');
    })();
    expect(error.issues).toEqual([
      { field: 'to', message: 'is not a mobile number', messageId: 'verikit.error.phone_number.not_mobile' },
    ]);
    expect([error.message, error.messageId]).toEqual([
      'to is not a mobile number',
      'verikit.error.phone_number.not_mobile',
    ]);
  });

  it('phoneNumberSchema outputs E.164 for every international form of one number', () => {
    for (const typed of [
      '+2348012345678',
      '+23408012345678',
      '+234 801 234 5678',
      '00234-801-234-5678',
      ' +234.801.234.5678 ',
    ])
      expect(phoneNumberSchema.parse(typed)).toBe('+2348012345678');
  });
});

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
