import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { readAnthropicHttpFailure } from './index.ts';

httpReaderCheck({ provider: 'anthropic', read: readAnthropicHttpFailure });
