import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet, safeString } from '@faultline/classify/toolkit';
import { OPENROUTER_PROVIDER, openRouterErrorMetadata } from './extract-openrouter.ts';

const MAX_CHOICES = 64;

function choicesOf(value: unknown): unknown[] {
  const choices = safeGet(value, 'choices');
  return Array.isArray(choices) ? choices.slice(0, MAX_CHOICES) : [];
}

/** The SDK turns `finish_reason` into `finishReason`; read both. */
function finishReasonOf(choice: unknown): string | undefined {
  return (
    safeString(safeGet(choice, 'finishReason'), 100) ?? safeString(safeGet(choice, 'finish_reason'), 100)
  );
}

function withRequestId(metadata: ProviderErrorMetadata, value: unknown): ProviderErrorMetadata {
  const id = safeString(safeGet(value, 'id'), 200);
  if (id !== undefined && id !== '') metadata.requestId = id;
  return metadata;
}

/**
 * Reads an OpenRouter chat result (or stream chunk) that arrived with 200 but whose answer was
 * withheld: a choice finished with `content_filter` (OpenRouter's normalised finish reason when the
 * upstream's filter removed the answer). Returns the metadata to throw; `undefined` for an ordinary
 * answer. Total: any value is accepted.
 */
export function detectOpenRouterBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  for (const choice of choicesOf(result)) {
    if (finishReasonOf(choice) !== 'content_filter') continue;
    return withRequestId(
      {
        provider: OPENROUTER_PROVIDER,
        message: 'OpenRouter withheld the answer (finish_reason "content_filter").',
        origin: 'blocked_response',
        blockReason: 'content_filter',
      },
      result,
    );
  }
  return undefined;
}

/**
 * Reads an OpenRouter stream chunk that is really a failure, and returns the metadata to throw:
 * - the chunk's `error` member (`{ code, message, metadata }`: OpenRouter's documented way to say the
 *   generation failed after the 200, `code` being the upstream status), read as its words say;
 * - a choice finished with `error` and no `error` member: a server error;
 * - a withheld answer (`content_filter`), as {@link detectOpenRouterBlockedAnswer}.
 * `undefined` for an ordinary chunk. Total: any value is accepted.
 */
export function detectOpenRouterStreamFailure(chunk: unknown): ProviderErrorMetadata | undefined {
  const error = safeGet(chunk, 'error');
  if (error !== null && typeof error === 'object') {
    return withRequestId(
      openRouterErrorMetadata(error, {
        status: undefined,
        origin: 'stream_event',
        fallback: 'OpenRouter ended the answer with an error mid-stream',
      }),
      chunk,
    );
  }
  const blocked = detectOpenRouterBlockedAnswer(chunk);
  if (blocked !== undefined) return blocked;
  for (const choice of choicesOf(chunk)) {
    if (finishReasonOf(choice) !== 'error') continue;
    return withRequestId(
      {
        provider: OPENROUTER_PROVIDER,
        message: 'OpenRouter ended the answer with an error mid-stream (finish_reason "error").',
        origin: 'stream_event',
        providerCode: 'error',
      },
      chunk,
    );
  }
  return undefined;
}
