import { stainlessFamilyCheck } from '@faultline/test-fixtures/stainless-family-check';
import { openaiExtractor, readOpenAIHttpFailure } from './index.ts';
import { CHAT_PARAMS, newClient, SDKS } from './test-support.ts';

stainlessFamilyCheck({
  provider: 'openai',
  extractor: openaiExtractor,
  read: readOpenAIHttpFailure,
  requestIdHeader: 'x-request-id',
  rateLimitBody: JSON.stringify({
    error: {
      message: 'Rate limit reached for requests',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    },
  }),
  sdks: SDKS.map((sdk) => ({
    alias: sdk.alias,
    call: (baseURL, { timeoutMs, signal }) =>
      newClient(sdk, { baseURL, timeout: timeoutMs }).chat.completions.create(
        { ...CHAT_PARAMS },
        signal === undefined ? {} : { signal },
      ),
  })),
});
