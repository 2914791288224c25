import { ProviderProtocolError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { readEnvelope } from './envelope.js';

function failureOf(text: string): ProviderProtocolError {
  const reading = readEnvelope('sms.send', 200, text);
  if (reading.ok) throw new Error('expected a malformed envelope');
  expect(ProviderProtocolError.isInstance(reading.error)).toBe(true);
  return reading.error;
}

describe('readEnvelope: what is wrong with a malformed envelope', () => {
  it('says a field is missing only when its key is absent', () => {
    const error = failureOf('{"message":"ok"}');
    expect(error.message).toContain('success is missing');
    expect(error.field).toBe('success');
  });

  const wrongTypes: Array<[string, string, string]> = [
    ['{"success":"yes"}', 'success', 'success must be a boolean'],
    ['{"success":null}', 'success', 'success must be a boolean'],
    ['{"success":true,"message":424242}', 'message', 'message must be a string'],
    ['{"success":true,"code":"482913"}', 'code', 'code must be a number'],
  ];
  for (const [body, field, wording] of wrongTypes) {
    it(`says ${field} has the wrong type for ${body}, without quoting the value`, () => {
      const error = failureOf(body);
      expect(error.message).toContain(wording);
      expect(error.message).not.toContain('is missing');
      expect(error.field).toBe(field);
      for (const value of ['yes', '424242', '482913']) expect(error.message).not.toContain(value);
    });
  }

  it('says a body that is not an object is not a JSON object', () => {
    expect(failureOf('[1,2]').message).toContain('is not a JSON object');
    expect(failureOf('"text"').message).toContain('is not a JSON object');
  });
});
