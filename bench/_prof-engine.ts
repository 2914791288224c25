import { createVerikit } from '@verikit/core';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
const v = createVerikit({ provider: createTestProviderV1(), secret: 'x'.repeat(40), clock: new ManualClock(), policies: { maxAttempts: 100, maxSendsPerHour: 1_000_000 } });
const ids: string[] = [];
for (let i = 0; i < 500; i++) ids.push((await v.start({ kind: 'identity', idType: 'bvn', number: `2${String(i).padStart(10, '0')}` })).id);
const t = performance.now(); const c = process.cpuUsage();
for (let a = 0; a < 90; a++) for (const id of ids) await v.send(id, { type: 'submit-code', code: '000000' });
const cpu = process.cpuUsage(c);
console.log('events/s', Math.round(45000 / ((performance.now() - t) / 1000)), 'cpu µs/event', ((cpu.user + cpu.system) / 45000).toFixed(1));
