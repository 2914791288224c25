import { describe, expect, it } from 'vitest';
import { capture, gatewayFakeOf } from './cli.fixtures.js';
import { runCli } from './run-cli.js';

describe('verikit sandbox request lines', () => {
  it('show the last digits of a phone number, so two lines can be told apart, and never a whole number, OTP or BVN', async () => {
    const io = capture();
    const sandbox = gatewayFakeOf(await runCli(['sandbox', '--port', '0'], io), io);
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${sandbox.baseUrl}/gateway/api/v1${path}`, {
          method: 'POST',
          headers: { apikey: sandbox.apiKey },
          body: JSON.stringify(body),
        });
      expect((await post('/verify/phoneNumber', { from: 'Acme', phoneNumber: '+2348031115678' })).status).toBe(200);
      expect((await post('/verify/phoneNumber', { from: 'Acme', phoneNumber: '+2348031114321' })).status).toBe(200);
      expect(
        (await post('/send/sms', { from: 'Acme', to: '+2348031115678', message: 'Your code is 482913' })).status,
      ).toBe(200);
      expect((await post('/verify/bvn', { number: '22222222222', otp: '777123' })).status).toBe(200);
      expect((await post('/verify/phoneCheck', { code: '918273', requestId: 'req-1' })).status).toBeLessThan(500);
      const requests = io.lines.filter((line) => line.includes(' ← POST '));
      expect(requests).toHaveLength(5);
      expect(requests[0]).toContain('"phoneNumber":"+234••••••5678"');
      expect(requests[1]).toContain('"phoneNumber":"+234••••••4321"');
      expect(requests[2]).toContain('"to":"+234••••••5678"');
      expect(requests[3]).toContain('{"number":"•••","otp":"•••"}');
      expect(requests[4]).toContain('"code":"•••"');
      const output = io.lines.join('\n');
      for (const hidden of [
        '2348031115678',
        '2348031114321',
        '8031115678',
        '482913',
        '22222222222',
        '2222',
        '777123',
        '918273',
      ]) {
        expect(output).not.toContain(hidden);
      }
    } finally {
      await sandbox.close();
    }
  });
});
