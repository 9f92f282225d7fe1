import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { readGoogleGenaiHttpFailure } from './index.ts';

httpReaderCheck({ provider: 'google-genai', read: readGoogleGenaiHttpFailure });
