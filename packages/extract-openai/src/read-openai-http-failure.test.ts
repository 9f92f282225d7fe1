import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { readOpenAIHttpFailure } from './index.ts';

httpReaderCheck({ provider: 'openai', read: readOpenAIHttpFailure });
