import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { readMistralHttpFailure } from './index.ts';

httpReaderCheck({ provider: 'mistral', read: readMistralHttpFailure });
