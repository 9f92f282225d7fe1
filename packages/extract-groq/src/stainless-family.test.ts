import { stainlessFamilyCheck } from '@faultline/test-fixtures/stainless-family-check';
import { groqExtractor, readGroqHttpFailure } from './index.ts';
import { CHAT_PARAMS, SDKS } from './test-support.ts';

stainlessFamilyCheck({
  provider: 'groq',
  extractor: groqExtractor,
  read: readGroqHttpFailure,
  requestIdHeader: 'x-request-id',
  rateLimitBody: JSON.stringify({
    error: {
      message: 'Rate limit reached for model `llama-3.3-70b-versatile` on requests per minute (RPM)',
      type: 'requests',
      code: 'rate_limit_exceeded',
    },
  }),
  sdks: SDKS.map((sdk) => ({
    alias: sdk.alias,
    call: (baseURL, { timeoutMs, signal }) =>
      sdk
        .create(baseURL, timeoutMs)
        .chat.completions.create({ ...CHAT_PARAMS }, signal === undefined ? {} : { signal }),
  })),
});
