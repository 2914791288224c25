import { isInteger, isSafeNumber, parse } from 'lossless-json';

/**
 * Parses one of Termii's JSON bodies (an answer or an event webhook) without losing digits. Termii's message ids
 * are 19-digit numbers (its documented examples: `"5964465985113503103"`, `"2255298515609943356"`), past the
 * 2^53 that a JavaScript number holds exactly; some answers and reports send them as JSON numbers, which
 * `JSON.parse` rounds, so a delivery receipt would name another message than its send. An integer that a number
 * cannot hold exactly is kept as its digits (a string); every other value is what `JSON.parse` gives
 * (decision 1530: `lossless-json`). Throws a `SyntaxError` on text that is not JSON, as `JSON.parse` does.
 */
export function parseTermiiJson(text: string): unknown {
  return parse(text, null, (digits) => (isInteger(digits) && !isSafeNumber(digits) ? digits : Number(digits)));
}
