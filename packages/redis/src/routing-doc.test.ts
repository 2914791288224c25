import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { redisSkipReason, redisUrl } from './redis-test-env.fixtures.js';

const unavailable = await redisSkipReason('docs/routing.md');
const page = readFileSync(new URL('../../../docs/routing.md', import.meta.url), 'utf8');
const fixture = readFileSync(new URL('./routing-doc.fixtures.ts', import.meta.url), 'utf8');

describe('docs/routing.md', () => {
  it('shows the snippet exactly as the file this test runs', () => {
    const snippet = fixture.slice(fixture.indexOf('// snippet:start\n') + 17, fixture.indexOf('// snippet:end'));
    expect(page).toContain(`\`\`\`ts\n${snippet}\`\`\``);
  });

  it.skipIf(unavailable !== undefined)('runs it: a routed provider, and the table printed', async () => {
    vi.stubEnv('REDIS_URL', redisUrl);
    // The providers' settings, as a deployment's environment gives them (nothing is sent here).
    vi.stubEnv('TERMII_API_KEY', 'termii-doc-test-key');
    vi.stubEnv('TWILIO_ACCOUNT_SID', `AC${'0'.repeat(32)}`);
    vi.stubEnv('TWILIO_AUTH_TOKEN', '1'.repeat(32));
    vi.stubEnv('TWILIO_VERIFY_SERVICE_SID', `VA${'2'.repeat(32)}`);
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    try {
      // The snippet only reads: the table of the default namespace, whatever it holds.
      const { provider } = await import('./routing-doc.fixtures.js');
      expect(provider.phone!.channels).toContain('sms');
      expect(printed[0]).toMatch(/^route\s+member\s+sent\s+delivered\s+verified\s+to verify\s+believed/);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});
