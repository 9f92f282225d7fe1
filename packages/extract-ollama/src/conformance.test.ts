import { conformanceSuite } from '@faultline/test-fixtures/conformance-suite';
import fc from 'fast-check';
import { ollamaExtractor } from './extract-ollama.ts';
import { withClassifiedErrors } from './index.ts';

conformanceSuite({
  provider: 'ollama',
  label: 'Ollama',
  extractor: ollamaExtractor,
  sdkShaped: fc
    .record({ status_code: fc.anything(), error: fc.anything() })
    .map((fields) => Object.assign(new Error('x'), fields, { name: 'ResponseError' })),
  withClassifiedErrors,
});
