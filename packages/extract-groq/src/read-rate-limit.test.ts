import { rateLimitSuite } from '@faultline/test-fixtures/rate-limit-suite';
import { readHttpFailure, readRateLimit } from './index.ts';

rateLimitSuite('Groq', { readHttpFailure, readRateLimit });
