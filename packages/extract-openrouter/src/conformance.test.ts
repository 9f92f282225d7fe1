import { conformanceSuite } from '@faultline/test-fixtures/conformance-suite';
import fc from 'fast-check';
import { openrouterExtractor } from './extract-openrouter.ts';
import { withClassifiedErrors } from './index.ts';

conformanceSuite({
  provider: 'openrouter',
  label: 'OpenRouter',
  extractor: openrouterExtractor,
  // The fields of @openrouter/sdk's OpenRouterError, with values of any type.
  sdkShaped: fc
    .record({
      statusCode: fc.anything(),
      headers: fc.anything(),
      body: fc.anything(),
      rawResponse: fc.anything(),
      contentType: fc.anything(),
    })
    .map((fields) => Object.assign(new Error('x'), fields, { name: 'TooManyRequestsResponseError' })),
  withClassifiedErrors,
});
