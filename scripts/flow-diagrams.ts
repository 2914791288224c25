/**
 * `pnpm diagrams`: regenerates the flow diagrams in docs/flows.md from the machine definitions.
 * scripts/flow-diagrams.test.ts fails when the committed document is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { flowDiagramMachines, flowsDocPath, generateFlowDiagrams } from './flow-diagrams-markdown.js';

const current = readFileSync(flowsDocPath, 'utf8');
const next = generateFlowDiagrams(current, flowDiagramMachines());
if (next === current) {
  console.log('docs/flows.md: diagrams are up to date');
} else {
  writeFileSync(flowsDocPath, next);
  console.log('docs/flows.md: diagrams regenerated');
}
