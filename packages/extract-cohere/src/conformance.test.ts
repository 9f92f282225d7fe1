import { conformanceSuite } from '@faultline/test-fixtures/conformance-suite';
import fc from 'fast-check';
import { cohereExtractor } from './extract-cohere.ts';
import { withClassifiedErrors } from './index.ts';

// Fields of any kind on an error whose prototype chain is cohere-ai's (a class named CohereError).
class CohereError extends Error {}

conformanceSuite({
  provider: 'cohere',
  label: 'Cohere',
  extractor: cohereExtractor,
  sdkShaped: fc
    .record({
      name: fc.oneof(fc.constant('TooManyRequestsError'), fc.string()),
      message: fc.anything(),
      statusCode: fc.anything(),
      body: fc.anything(),
      rawResponse: fc.anything(),
      cause: fc.anything(),
    })
    .map((fields) => Object.assign(new CohereError('x'), fields)),
  withClassifiedErrors,
});
