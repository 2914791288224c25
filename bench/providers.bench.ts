/**
 * `pnpm bench providers`: a phone send + check round trip through each HTTP provider built on
 * `@verikit/provider-utils` (Termii, Twilio) against its fake, beside the same two requests made with bare
 * `fetch`, measured side by side in one run. (The gateway's own figures: `pnpm bench gateway`.)
 *
 * Both fakes run in a child process (its own core); this process runs the clients. Each check sends a code
 * that can never match (4 digits; the fakes make 6), which each provider reads as `{ valid: false }`. The bare
 * client sends the same bodies and headers, reads each body once and parses it with JSON.parse; it validates
 * nothing. Each round trip gets a fresh AbortSignal, in both arms.
 *
 * At concurrency 1 and 64, rounds alternate provider / bare; printed: round trips per second (medians), the cost
 * ratio bare rate / provider rate (1.0 = free; target <= 1.3), and this process's CPU time per round trip.
 */
import { fileURLToPath } from 'node:url';
import { silentLogger, type ProviderV1 } from '@verikit/provider';
import { spawnServer } from './child.js';
import { sized } from './mode.js';
import type { SummaryRow } from './summary.js';
import { compareWithBare, type RoundTrip } from './round-trips.js';
import { createTermiiProvider } from '@verikit/termii';
import { startTermiiFake } from '@verikit/termii/fake';
import { createTwilioProvider } from '@verikit/twilio';
import { startTwilioFake, type TwilioFakeSettings } from '@verikit/twilio/fake';

const serverFlag = 'VERIKIT_PROVIDERS_BENCH_SERVER';
const rounds = sized(4, 1);
const roundMs = sized(1000, 300);

interface Servers {
  termii: { url: string; apiKey: string };
  twilio: TwilioFakeSettings;
}

/** The child: both fakes on free ports; prints where they are. */
async function serve(): Promise<void> {
  const termii = await startTermiiFake();
  const twilio = await startTwilioFake();
  process.stdout.write(
    `${JSON.stringify({ termii: { url: termii.url, apiKey: termii.apiKey }, twilio: twilio.settings } satisfies Servers)}\n`,
  );
}

async function startServers(): Promise<Servers & { stop: () => void }> {
  const { line, stop } = await spawnServer('provider fakes', fileURLToPath(import.meta.url), { [serverFlag]: '1' });
  return { ...(JSON.parse(line) as Servers), stop };
}

/** Valid, distinct phone numbers, none of the fakes' magic ones. */
const phoneNumber = (index: number) => `+23480500${String(index % 100_000).padStart(5, '0')}`;

function providerRoundTrip(provider: ProviderV1): RoundTrip {
  const phone = provider.phone!;
  return async (index) => {
    const context = { signal: new AbortController().signal, idempotencyKey: `bench:${index}`, logger: silentLogger };
    const { requestId } = await phone.send({ phoneNumber: phoneNumber(index), channel: 'sms' }, context);
    const { valid } = await phone.check({ requestId, code: '0000' }, context);
    if (valid) throw new Error('a wrong code was accepted');
  };
}

function bareTermii(url: string, apiKey: string): RoundTrip {
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const post = async (path: string, body: Record<string, unknown>, signal: AbortSignal) =>
    JSON.parse(
      await (
        await fetch(url + path, { method: 'POST', headers, body: JSON.stringify({ api_key: apiKey, ...body }), signal })
      ).text(),
    ) as Record<string, unknown>;
  return async (index) => {
    const signal = new AbortController().signal;
    const sent = await post(
      '/api/sms/otp/send',
      {
        message_type: 'NUMERIC',
        pin_type: 'NUMERIC',
        to: phoneNumber(index).slice(1),
        from: 'Bench',
        channel: 'dnd',
        pin_attempts: 1,
        pin_time_to_live: 10,
        pin_length: 6,
        pin_placeholder: '< 1234 >',
        message_text: 'Code < 1234 >',
      },
      signal,
    );
    if (typeof sent['pinId'] !== 'string') throw new Error('the fake did not answer with a pinId');
    const checked = await post('/api/sms/otp/verify', { pin_id: sent['pinId'], pin: '0000' }, signal);
    if (checked['verified'] === true) throw new Error('a wrong code was accepted');
  };
}

function bareTwilio(settings: TwilioFakeSettings): RoundTrip {
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
    authorization: `Basic ${btoa(`${settings.accountSid}:${settings.authToken}`)}`,
  };
  const base = `${settings.verifyBaseUrl}/v2/Services/${settings.verifyServiceSid}`;
  const post = async (path: string, form: Record<string, string>, signal: AbortSignal) =>
    JSON.parse(
      await (
        await fetch(base + path, { method: 'POST', headers, body: new URLSearchParams(form).toString(), signal })
      ).text(),
    ) as Record<string, unknown>;
  return async (index) => {
    const signal = new AbortController().signal;
    const sent = await post('/Verifications', { To: phoneNumber(index), Channel: 'sms' }, signal);
    if (typeof sent['sid'] !== 'string') throw new Error('the fake did not answer with a sid');
    const checked = await post('/VerificationCheck', { VerificationSid: sent['sid'], Code: '0000' }, signal);
    if (checked['valid'] === true) throw new Error('a wrong code was accepted');
  };
}

/** Runs the providers bench: see the file comment. */
export async function run(): Promise<SummaryRow[]> {
  const servers = await startServers();
  try {
    const arms: Array<[string, RoundTrip, RoundTrip]> = [
      [
        'termii',
        providerRoundTrip(
          createTermiiProvider({
            apiKey: servers.termii.apiKey,
            baseUrl: servers.termii.url,
            senderId: 'Bench',
            pinAttempts: 1,
          }),
        ),
        bareTermii(servers.termii.url, servers.termii.apiKey),
      ],
      ['twilio', providerRoundTrip(createTwilioProvider({ ...servers.twilio })), bareTwilio(servers.twilio)],
    ];
    console.log(
      `phone send + check round trips against each provider's fake in a child process, ${rounds} alternating rounds of ${roundMs} ms`,
    );
    const offset = { next: 0 };
    const rows: SummaryRow[] = [];
    for (const [name, provider, bare] of arms) {
      for (const concurrency of [1, 64]) {
        const ratio = await compareWithBare(name, provider, bare, { concurrency, rounds, roundMs, offset });
        rows.push({
          measure: `${name} send + check, ${concurrency} in flight: time vs bare fetch`,
          value: `${ratio.toFixed(2)}x the time`,
          baseline: 'bare fetch, same requests',
          ratio,
          goal: '< 1.0x',
          met: ratio < 1,
        });
      }
    }
    return rows;
  } finally {
    servers.stop();
  }
}

if (process.env[serverFlag] === '1') await serve();
