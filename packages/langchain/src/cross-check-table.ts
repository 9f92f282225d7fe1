/**
 * LangChain's known differences from the provider SDKs and where the README's table lives (test
 * support, not exported). The table itself is `@faultline/test-fixtures/cross-check-table`.
 */

import { fileURLToPath } from 'node:url';
import type { CrossCheckColumn, KnownDifference } from '@faultline/test-fixtures/cross-check-table';

export const README_PATH: string = fileURLToPath(new URL('../README.md', import.meta.url));
export const TABLE_COMMAND = 'pnpm --filter @faultline/langchain cross-check-table';
export const COLUMNS: readonly CrossCheckColumn[] = [{ id: 'langchain', label: 'LangChain chat model' }];

/**
 * Scenarios where the LangChain path differs from the provider's SDK for a real reason, keyed by
 * scenario id. Each is asserted as it is.
 */
const GOOGLE_TRANSPORT =
  "@google/generative-ai (the SDK @langchain/google-genai calls, not @google/genai) rethrows a transport failure as a plain Error that keeps only the words 'fetch failed', not its cause: refused, DNS and reset look alike, so it can only be read as an ambiguous interruption";
const GOOGLE_ERROR_CHUNK =
  '@google/generative-ai yields the error chunk as a chunk without candidates, which @langchain/google-genai skips: the stream ends normally and nothing fails';

const HUNG = 'hung (the call did not settle after its signal fired)';

export const KNOWN_DIFFERENCES: Readonly<Record<string, KnownDifference>> = {
  'google-genai/gemini-never-answer': {
    actual: HUNG,
    why: "the call's AbortSignal (1.5 s) did not end a request the server never answers: ChatGoogleGenerativeAI's invoke stayed pending (only the SDK's or the platform's own timeout would end it)",
  },
  'mistral/timeout-no-answer': {
    actual: HUNG,
    why: "the call's AbortSignal (1.5 s) did not end a request the server never answers: ChatMistralAI (which streams when given a signal) stayed pending until the SDK's own timeout",
  },
  'google-genai/gemini-connection-refused': {
    actual: 'ambiguous / interrupted / not retryable',
    why: GOOGLE_TRANSPORT,
  },
  'google-genai/gemini-dns-failure': {
    actual: 'ambiguous / interrupted / not retryable',
    why: GOOGLE_TRANSPORT,
  },
  'google-genai/gemini-stream-error-unavailable': { actual: 'resolved', why: GOOGLE_ERROR_CHUNK },
  'google-genai/gemini-stream-error-without-code': { actual: 'resolved', why: GOOGLE_ERROR_CHUNK },
  'google-genai/vertex-stream-error-internal': { actual: 'resolved', why: GOOGLE_ERROR_CHUNK },
  'google-genai/gemini-stream-finish-prohibited-content': {
    actual: 'resolved',
    why: '@langchain/google-genai drops the last chunk (finishReason PROHIBITED_CONTENT, no text): the stream ends normally and no chunk says the answer was withheld',
  },
};
