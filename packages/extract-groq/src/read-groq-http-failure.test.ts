import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { readGroqHttpFailure } from './index.ts';

httpReaderCheck({ provider: 'groq', read: readGroqHttpFailure });
