import { readPhoneSendInputV1 } from '@verikit/provider';

/**
 * @deprecated Moved to the spec: `readPhoneSendInputV1` from `@verikit/provider` (the same function). This alias
 * goes in the next minor release (docs/migration.md).
 */
export const readPhoneSendInput: typeof readPhoneSendInputV1 = readPhoneSendInputV1;
