import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/langchain', () => {
    expect(exportList(entry, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'classifyLangChainError',
        'createLangChainExtractor',
        'detectLangChainBlockedAnswer',
        'faultlineCallbackHandler',
        'faultlineModelFallbackMiddleware',
        'faultlineModelRetryMiddleware',
        'faultlineOnFailedAttempt',
        'faultlineRetryOn',
        'guardLangChainStream',
        'invokeWithFallbacks',
        'providerFromLlmType',
        'shouldFallBack',
      ],
      types: [
        'AgentChatModelLike',
        'FallbackChatModel',
        'FaultlineAgentMiddleware',
        'FaultlineCallbackHandler',
        'FaultlineCallbackHandlerOptions',
        'FaultlineModelFallbackOptions',
        'FaultlineModelRetryOptions',
        'GuardLangChainStreamOptions',
        'InvokableLike',
        'InvokeWithFallbacksOptions',
        'LangChainClassifyOptions',
        'LangChainProvider',
        'OnFailedAttemptOptions',
        'ShouldFallBackOptions',
      ],
    });
  });
});
