import { conformanceSuite } from '@faultline/test-fixtures/conformance-suite';
import fc from 'fast-check';
import { huggingfaceExtractor } from './extract-huggingface.ts';
import { withClassifiedErrors } from './index.ts';

conformanceSuite({
  provider: 'huggingface',
  label: 'Hugging Face',
  extractor: huggingfaceExtractor,
  sdkShaped: fc
    .record({ status: fc.anything(), headers: fc.anything(), body: fc.anything() })
    .map((fields) => Object.assign(new Error('x'), fields, { name: 'HuggingfaceApiError' })),
  withClassifiedErrors,
});
