import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { readBedrockHttpFailure } from './index.ts';

httpReaderCheck({ provider: 'bedrock', read: readBedrockHttpFailure });
