import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '@verikit/provider';
import { createAfricasTalkingProvider } from './create-africastalking-provider.js';

const settings = { username: 'sandbox', apiKey: 'atsk_test_key_0123456789' };
const session = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), headers: {} });

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the dialIn capability', () => {
  it('takes its service code from AFRICASTALKING_USSD_SERVICE_CODE when not given, read once at creation', () => {
    vi.stubEnv('AFRICASTALKING_USSD_SERVICE_CODE', '*384*77#');
    const provider = createAfricasTalkingProvider(settings);
    expect(provider.dialIn?.serviceCode).toBe('*384*77#');
    expect(createAfricasTalkingProvider({ ...settings, ussdServiceCode: '*384*1234#' }).dialIn?.serviceCode).toBe(
      '*384*1234#',
    );
    vi.stubEnv('AFRICASTALKING_USSD_SERVICE_CODE', '*384*78#');
    expect(provider.dialIn?.serviceCode).toBe('*384*77#');
    vi.stubEnv('AFRICASTALKING_USSD_SERVICE_CODE', '384#');
    const error = (() => {
      try {
        return createAfricasTalkingProvider(settings);
      } catch (caught) {
        return caught;
      }
    })();
    expect(InvalidInputError.isInstance(error) && error.field).toBe('AFRICASTALKING_USSD_SERVICE_CODE');
    expect(String((error as Error).message)).not.toContain('384#');
  });

  it('exists only with a ussdServiceCode, and refuses one that is not a service code', () => {
    expect(createAfricasTalkingProvider(settings).dialIn).toBeUndefined();
    expect(createAfricasTalkingProvider({ ...settings, ussdServiceCode: '*384*1234#' }).dialIn?.serviceCode).toBe(
      '*384*1234#',
    );
    expect(() => createAfricasTalkingProvider({ ...settings, ussdServiceCode: '*384*1234' })).toThrow(
      /ussdServiceCode/,
    );
  });

  it("reads a session of its own service code, and refuses another code's", () => {
    const dialIn = createAfricasTalkingProvider({ ...settings, ussdServiceCode: '*384*1234#' }).dialIn!;
    const fields = { sessionId: 'ATUid_1', serviceCode: '*384*1234#', phoneNumber: '+2348031234567', text: '583921' };
    expect(dialIn.parseSession(session(fields))).toEqual({
      sessionId: 'ATUid_1',
      phoneNumber: '+2348031234567',
      text: '583921',
    });
    const error = (() => {
      try {
        return dialIn.parseSession(session({ ...fields, serviceCode: '*384*9999#' }));
      } catch (caught) {
        return caught;
      }
    })();
    expect(InvalidInputError.isInstance(error) && error.field).toBe('serviceCode');
  });

  it('answers CON/END as text/plain, and refuses a screen the network would cut', () => {
    const dialIn = createAfricasTalkingProvider({ ...settings, ussdServiceCode: '*384*1234#' }).dialIn!;
    expect(dialIn.answer('END', 'Thank you')).toEqual({
      body: 'END Thank you',
      contentType: 'text/plain; charset=utf-8',
    });
    expect(() => dialIn.answer('CON', 'x'.repeat(183))).toThrow(InvalidInputError);
  });
});
