// Bun and Deno: print the smoke run's result.
import { smoke } from './smoke.js';

console.log(await smoke());
