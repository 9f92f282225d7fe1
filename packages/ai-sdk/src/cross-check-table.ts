/**
 * The AI SDK's known differences from the provider SDKs and where the README's table lives (test
 * support, not exported). The table itself is `@faultline/test-fixtures/cross-check-table`.
 */

import { fileURLToPath } from 'node:url';
import type { CrossCheckColumn, KnownDifference } from '@faultline/test-fixtures/cross-check-table';

export const README_PATH: string = fileURLToPath(new URL('../README.md', import.meta.url));
export const TABLE_COMMAND = 'pnpm --filter @faultline/ai-sdk cross-check-table';
export const COLUMNS: readonly CrossCheckColumn[] = [
  { id: 'ai-v6', label: 'AI SDK 6' },
  { id: 'ai-v5', label: 'AI SDK 5' },
];

/**
 * Scenarios where the AI SDK path differs from the provider's SDK for a real reason, keyed by
 * scenario id (every major) or `<major> <scenario id>`. Each is asserted as it is.
 */
export const KNOWN_DIFFERENCES: Readonly<Record<string, KnownDifference>> = {
  'openai/openrouter-stream-error-chunk': {
    actual: 'ambiguous / interrupted / not retryable',
    why: "@ai-sdk/openai's chunk schema drops the `error` member (code 502) of OpenRouter's chunk; what is left is its finish_reason `error` (ai 6's raw finish reason; ai 5, which maps it to unknown, keeps none, so the guard sees no finish): the stream fails, without its cause",
  },
  'google-genai/gemini-stream-error-without-code': {
    actual: 'transient / server_error / retryable',
    why: '@ai-sdk/google hands on the error chunk (status INTERNAL), which @google/genai turns into an empty chunk (read as interrupted): the AI SDK path knows more',
  },
};
