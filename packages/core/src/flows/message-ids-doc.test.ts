import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorMessageIds, messageIdOf, unknownErrorMessageId } from '../index.js';

// A product translates the message ids docs/ui.md lists; the page and @verikit/core's table must hold the same ids.
const page = readFileSync(new URL('../../../../docs/ui.md', import.meta.url), 'utf8');
const documented = new Set([...page.matchAll(/`(verikit\.error\.[a-z_]+)`/g)].map((match) => match[1]));

describe('the error message ids', () => {
  // The page also lists the browser client's own ids (network_error, bad_response, the phone-number problems):
  // @verikit/client's messages.test.ts holds its catalogue to the same page, row for row.
  it('are all in docs/ui.md, the fallback id included', () => {
    const ids = new Set([...Object.values(errorMessageIds), unknownErrorMessageId]);
    expect([...ids].filter((id) => !documented.has(id))).toEqual([]);
  });

  it('give a code outside the table the fallback id', () => {
    expect(messageIdOf('a_custom_providers_code')).toBe(unknownErrorMessageId);
  });
});
