import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet, safeString } from '@faultline/classify/toolkit';
import { MISTRAL_PROVIDER } from './extract-mistral.ts';

/** Finish reasons that mean the answer was withheld, not finished. */
const BLOCKING_FINISH_REASONS = new Set(['content_filter']);

/** The chunk inside a stream event (`{ data: chunk }`), or the value itself (a completion). */
function unwrap(value: unknown): unknown {
  const data = safeGet(value, 'data');
  return data !== null && typeof data === 'object' && safeGet(data, 'choices') !== undefined ? data : value;
}

function choicesOf(value: unknown): unknown[] {
  const choices = safeGet(unwrap(value), 'choices');
  return Array.isArray(choices) ? choices.slice(0, 64) : [];
}

/** The SDK turns `finish_reason` into `finishReason`; read both. */
function finishReasonOf(choice: unknown): string | undefined {
  return (
    safeString(safeGet(choice, 'finishReason'), 100) ?? safeString(safeGet(choice, 'finish_reason'), 100)
  );
}

/**
 * Reads a Mistral chat completion (or stream event) that arrived with 200 but whose answer was
 * withheld (`finishReason: "content_filter"`), and returns the metadata to throw; `undefined` for an
 * ordinary answer. Total: any value is accepted.
 */
export function detectMistralBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  for (const choice of choicesOf(result)) {
    const reason = finishReasonOf(choice);
    if (reason === undefined || !BLOCKING_FINISH_REASONS.has(reason)) continue;
    const metadata: ProviderErrorMetadata = {
      provider: MISTRAL_PROVIDER,
      message: `Mistral withheld the answer (finish_reason "${reason}").`,
      origin: 'blocked_response',
      blockReason: reason,
    };
    const requestId = safeString(safeGet(unwrap(result), 'id'), 200);
    if (requestId !== undefined) metadata.requestId = requestId;
    return metadata;
  }
  return undefined;
}

/**
 * Reads a Mistral stream event that is really a failure, and returns the metadata to throw:
 * - a withheld answer (`finishReason: "content_filter"`): `blocked_response`, as
 *   `detectMistralBlockedAnswer`;
 * - a generation that failed mid-stream (`finishReason: "error"`, a value of the API's finish
 *   reason enum): `stream_event`, read as a server error. The SDKs parse that chunk as an ordinary
 *   one and then end normally on `[DONE]`, so nothing else reports the failure.
 * `undefined` for an ordinary event. Total: any value is accepted.
 */
export function detectMistralStreamFailure(event: unknown): ProviderErrorMetadata | undefined {
  const blocked = detectMistralBlockedAnswer(event);
  if (blocked !== undefined) return blocked;
  for (const choice of choicesOf(event)) {
    if (finishReasonOf(choice) !== 'error') continue;
    const metadata: ProviderErrorMetadata = {
      provider: MISTRAL_PROVIDER,
      message: 'Mistral ended the answer with an internal error mid-stream (finish_reason "error").',
      origin: 'stream_event',
      providerCode: 'error',
    };
    const requestId = safeString(safeGet(unwrap(event), 'id'), 200);
    if (requestId !== undefined) metadata.requestId = requestId;
    return metadata;
  }
  return undefined;
}

/** True for the stream event that ends a Mistral stream: one whose choice carries a finish reason. */
export function isMistralTerminalEvent(event: unknown): boolean {
  return choicesOf(event).some((choice) => {
    const reason = finishReasonOf(choice);
    return reason !== undefined && reason.length > 0;
  });
}

/** Characters of output in a Mistral stream event (string content or text chunks). */
export function mistralEventCharacters(event: unknown): number {
  let total = 0;
  for (const choice of choicesOf(event)) {
    const content = safeGet(safeGet(choice, 'delta'), 'content');
    if (typeof content === 'string') total += content.length;
    else if (Array.isArray(content)) {
      for (const part of content.slice(0, 64)) {
        const text = safeGet(part, 'text');
        if (typeof text === 'string') total += text.length;
      }
    }
  }
  return total;
}
