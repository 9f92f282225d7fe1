import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/ai-sdk', () => {
    expect(exportList(entry, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'AI_SDK_PROVIDER',
        'AiSdkErrorPart',
        'HTTP_FAILURE_READERS',
        'aiSdkErrorName',
        'aiSdkExtractor',
        'aiSdkExtractorFor',
        'classifyAiSdkError',
        'createAiSdkExtractor',
        'detectAiSdkBlockedAnswer',
        'faultlineFallback',
        'faultlineMiddleware',
        'guardAiSdkStream',
        'providerFromId',
        'providerFromUrl',
        'withFaultlineEmbedding',
      ],
      types: [
        'AiSdkClassifyOptions',
        'AiSdkExtractorOptions',
        'AiSdkProvider',
        'AiSdkStreamPart',
        'CallOptionsLike',
        'EmbeddingModelLike',
        'FallbackCandidate',
        'FallbackLanguageModelLike',
        'FallbackModelCandidate',
        'FallbackPrompt',
        'FaultlineAiSdkOptions',
        'FaultlineFallbackModel',
        'FaultlineFallbackOptions',
        'FaultlineLanguageModelMiddleware',
        'GuardAiSdkStreamOptions',
        'HttpFailureReader',
        'ModelLike',
      ],
    });
  });
});
