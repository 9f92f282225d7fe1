import type { Classification, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import { mistralExtractor } from './extract-mistral.ts';

/** The whole pipeline as a user runs it: mistralExtractor, then render's built-in extractors, then classify. */
export function classifyThrown(
  error: unknown,
  options: { streaming?: boolean; signal?: AbortSignal } = {},
): { metadata: ProviderErrorMetadata; classification: Classification } {
  const faultline = classifyError(error, {
    extractors: [mistralExtractor],
    streaming: options.streaming === true,
    signal: options.signal,
  });
  return { metadata: faultline.metadata, classification: faultline.classification };
}
