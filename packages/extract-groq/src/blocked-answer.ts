import type { ProviderErrorMetadata } from '@faultline/classify';
import { safeGet, safeString } from '@faultline/classify/toolkit';
import { GROQ_PROVIDER } from './extract-groq.ts';

/** Finish reasons that mean the answer was withheld, not finished (OpenAI-compatible). */
const BLOCKING_FINISH_REASONS = new Set(['content_filter']);

function choicesOf(value: unknown): unknown[] {
  const choices = safeGet(value, 'choices');
  return Array.isArray(choices) ? choices.slice(0, 64) : [];
}

/**
 * Reads a Groq chat completion (or stream chunk) that arrived with 200 but whose answer was
 * withheld (`finish_reason: "content_filter"`), and returns the metadata to throw; `undefined`
 * for an ordinary answer. Total: any value is accepted.
 */
export function detectGroqBlockedAnswer(result: unknown): ProviderErrorMetadata | undefined {
  for (const choice of choicesOf(result)) {
    const reason = safeString(safeGet(choice, 'finish_reason'), 100);
    if (reason === undefined || !BLOCKING_FINISH_REASONS.has(reason)) continue;
    const metadata: ProviderErrorMetadata = {
      provider: GROQ_PROVIDER,
      message: `Groq withheld the answer (finish_reason "${reason}").`,
      origin: 'blocked_response',
      blockReason: reason,
    };
    const requestId =
      safeString(safeGet(safeGet(result, 'x_groq'), 'id'), 200) ?? safeString(safeGet(result, 'id'), 200);
    if (requestId !== undefined) metadata.requestId = requestId;
    return metadata;
  }
  return undefined;
}

/** True for the chunk that ends a Groq stream: one whose choice carries a finish_reason. */
export function isGroqTerminalChunk(chunk: unknown): boolean {
  return choicesOf(chunk).some((choice) => {
    const reason = safeGet(choice, 'finish_reason');
    return typeof reason === 'string' && reason.length > 0;
  });
}

/** Characters of output in a Groq stream chunk (content and reasoning deltas). */
export function groqChunkCharacters(chunk: unknown): number {
  let total = 0;
  for (const choice of choicesOf(chunk)) {
    const delta = safeGet(choice, 'delta');
    for (const key of ['content', 'reasoning']) {
      const text = safeGet(delta, key);
      if (typeof text === 'string') total += text.length;
    }
  }
  return total;
}
