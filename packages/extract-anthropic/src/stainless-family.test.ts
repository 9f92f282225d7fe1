import { stainlessFamilyCheck } from '@faultline/test-fixtures/stainless-family-check';
import { clientFor, REQUEST, SDKS } from '../test/support.ts';
import { anthropicExtractor, readAnthropicHttpFailure } from './index.ts';

stainlessFamilyCheck({
  provider: 'anthropic',
  extractor: anthropicExtractor,
  read: readAnthropicHttpFailure,
  requestIdHeader: 'request-id',
  rateLimitBody: JSON.stringify({
    type: 'error',
    error: {
      type: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit',
    },
  }),
  sdks: SDKS.map(({ alias, Client }) => ({
    alias,
    call: (baseURL, { timeoutMs, signal }) =>
      clientFor(Client, baseURL, timeoutMs).messages.create(
        { ...REQUEST },
        signal === undefined ? {} : { signal },
      ),
  })),
});
