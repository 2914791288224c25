// The snippet of docs/simulator.md ("From code"), run by simulator-doc.test.ts: the page must hold this text.
// snippet:start
import { formatTable, loadScenario, runSimulation, shippedScenarioUrl } from '@verikit/simulator';

const scenario = await loadScenario(shippedScenarioUrl('dnd-heavy'));
const smsOnly = await runSimulation(scenario, { flows: 300 });
const plan = await runSimulation(scenario, { flows: 300, channels: ['sms', 'whatsapp', 'voice'] });
export const table = formatTable([smsOnly, plan]);
console.log(table);
// snippet:end
