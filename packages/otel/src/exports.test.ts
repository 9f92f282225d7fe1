import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/otel', () => {
    expect(exportList(entry, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'ATTR_ERROR_TYPE',
        'ATTR_EXCEPTION_MESSAGE',
        'ATTR_EXCEPTION_STACKTRACE',
        'ATTR_EXCEPTION_TYPE',
        'ATTR_FAULTLINE_ATTEMPTS',
        'ATTR_FAULTLINE_CATEGORY',
        'ATTR_FAULTLINE_FALLBACK_TO_MODEL',
        'ATTR_FAULTLINE_FALLBACK_TO_PROVIDER',
        'ATTR_FAULTLINE_NEXT_STEP',
        'ATTR_FAULTLINE_REASON',
        'ATTR_FAULTLINE_RETRYABLE',
        'ATTR_FAULTLINE_RETRY_AFTER',
        'ATTR_FAULTLINE_RETRY_ATTEMPT',
        'ATTR_FAULTLINE_RETRY_DELAY',
        'ATTR_GEN_AI_PROVIDER_NAME',
        'ATTR_GEN_AI_REQUEST_MODEL',
        'ATTR_GEN_AI_SYSTEM',
        'EVENT_FALLBACK',
        'EVENT_RETRY',
        'INSTRUMENTATION_SCOPE',
        'METRIC_FAILURES',
        'METRIC_RETRY_WAIT',
        'faultlineOnRetry',
        'recordFailure',
        'recordFallback',
      ],
      types: ['Disclosure', 'FallbackTarget', 'FaultlineOtelOptions'],
    });
  });
});
