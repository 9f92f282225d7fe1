import type { Classification, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import { groqExtractor } from './extract-groq.ts';

/** The whole pipeline as a user runs it: groqExtractor, then render's built-in extractors, then classify. */
export function classifyThrown(
  error: unknown,
  options: { streaming?: boolean; signal?: AbortSignal } = {},
): { metadata: ProviderErrorMetadata; classification: Classification } {
  const faultline = classifyError(error, {
    extractors: [groqExtractor],
    streaming: options.streaming === true,
    signal: options.signal,
  });
  return { metadata: faultline.metadata, classification: faultline.classification };
}
