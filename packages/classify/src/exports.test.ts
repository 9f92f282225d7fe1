import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry0 from './index.ts';
import * as entry1 from './toolkit.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/classify', () => {
    expect(exportList(entry0, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'Classification',
        'DecidedBy',
        'DeliveredOutput',
        'ErrorCategory',
        'ErrorDomain',
        'FailureOrigin',
        'FailureReason',
        'NetworkPhase',
        'NextStep',
        'ProviderErrorMetadata',
        'RecoveryHints',
        'RuleId',
        'SdkCondition',
        'TAXONOMY',
        'UserAction',
        'UserActionKind',
        'classificationFor',
        'classify',
        'explainClassification',
        'onExtractorCrash',
      ],
      types: [
        'ClassificationOverride',
        'ClassificationOverrideFunction',
        'ClassifyOptions',
        'Explanation',
        'Extractor',
        'ExtractorCrash',
        'ExtractorCrashListener',
        'FeatureName',
        'HttpFailure',
        'HttpFailureReadOptions',
        'RuleOverrides',
        'TaxonomyRow',
      ],
    });
  });
  it('@faultline/classify/toolkit', () => {
    expect(exportList(entry1, new URL('./toolkit.ts', import.meta.url))).toEqual({
      values: [
        'ERROR_CATEGORIES',
        'ERROR_DOMAINS',
        'FAILURE_ORIGINS',
        'FAILURE_REASONS',
        'FEATURE_NAMES',
        'MAX_EVIDENCE_LENGTH',
        'MAX_PARSE_LENGTH',
        'MAX_RAW_BODY_LENGTH',
        'MAX_RETRY_AFTER_SECONDS',
        'NETWORK_PHASES',
        'NEXT_STEPS',
        'QUOTA_WAIT_THRESHOLD_SECONDS',
        'RULES',
        'RULE_IDS',
        'SDK_CONDITIONS',
        'TAXONOMY',
        'USER_ACTION_KINDS',
        'attachRawBody',
        'attachRawJsonBody',
        'causeChain',
        'classificationFor',
        'classify',
        'constructorName',
        'copyRawBody',
        'defineExtractor',
        'findNetworkCode',
        'inspectTransportError',
        'messageOf',
        'parseClassification',
        'parseDurationSeconds',
        'parseJsonSafely',
        'parseRetryAfterValue',
        'prototypeNames',
        'readHeader',
        'retryAfterFromHeaders',
        'safeGet',
        'safeHasOwn',
        'safeNumber',
        'safePath',
        'safeStatus',
        'safeString',
        'signalAbortOrigin',
        'waitFromText',
      ],
      types: ['ExtractContext', 'ExtractorDefinition', 'Rule', 'TransportFailure'],
    });
  });
});
