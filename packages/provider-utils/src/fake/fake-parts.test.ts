import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { fakeParts, mountFakeBasics, type FakeRequest } from './fake-parts.js';
import { serveFake } from './serve-fake.js';

describe('fakeParts', () => {
  it('clamps the latencies and keeps the outbox limit', () => {
    const parts = fakeParts({ latencyMs: -5, slowMs: 90_000, outboxLimit: 2 });
    expect([parts.latency.ms, parts.slowMs]).toEqual([0, 60_000]);
    for (const to of ['+2348031110001', '+2348031110002', '+2348031110003'])
      parts.outbox.push({ channel: 'sms', to, text: 'x' });
    expect(parts.outbox.messages.map((message) => message.to)).toEqual(['+2348031110002', '+2348031110003']);
    expect([fakeParts().latency.ms, fakeParts().slowMs]).toEqual([0, 3000]);
  });

  it('a listener that throws is not the fake failing: the others still hear', () => {
    const parts = fakeParts<string>();
    const heard: string[] = [];
    parts.listeners.add(() => {
      throw new Error('a listener of the test');
    });
    parts.listeners.add((line) => heard.push(line));
    expect(() => parts.emit('one')).not.toThrow();
    expect(heard).toEqual(['one']);
  });
});

describe('mountFakeBasics', () => {
  it('tells listeners each answered request without its query string, and serves the outbox', async () => {
    const parts = fakeParts();
    const app = new Hono();
    mountFakeBasics(app, parts);
    app.post('/send', (c) => c.json({ ok: true }, 201));
    const heard: FakeRequest[] = [];
    parts.listeners.add((request) => heard.push(request));
    parts.listeners.add(() => {
      throw new Error('a listener of the test');
    });
    parts.outbox.push({ channel: 'sms', to: '+2348031110004', text: 'Your code is 123456', code: '123456' });
    const server = await serveFake(app.fetch);
    try {
      expect((await fetch(`${server.url}/send?api_key=secret`, { method: 'POST' })).status).toBe(201);
      expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
      const outbox = (await (await fetch(`${server.url}/__fake/outbox`)).json()) as Array<{ to: string }>;
      expect(outbox.map((message) => message.to)).toEqual(['+2348031110004']);
      expect(heard).toEqual([
        { method: 'POST', path: '/send', status: 201 },
        { method: 'GET', path: '/nowhere', status: 404 },
        { method: 'GET', path: '/__fake/outbox', status: 200 },
      ]);
    } finally {
      await server.close();
    }
  });
});
