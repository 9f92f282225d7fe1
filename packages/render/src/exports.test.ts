import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry2 from './adapter.ts';
import * as entry0 from './index.ts';
import * as entry1 from './toolkit.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/render', () => {
    expect(exportList(entry0, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'CompletionError',
        'CompletionModelNotFoundError',
        'ERROR_REPORT_SCHEMA_VERSION',
        'EmbeddingError',
        'EmbeddingModelNotFoundError',
        'ErrorReport',
        'FaultlineContextError',
        'FaultlineError',
        'ImageGenerationError',
        'ImageGenerationModelNotFoundError',
        'ReportProviderMetadata',
        'RerankError',
        'RerankModelNotFoundError',
        'SpeechError',
        'SpeechModelNotFoundError',
        'ThrownValueError',
        'TranscriptionError',
        'TranscriptionModelNotFoundError',
        'WaitKind',
        'classifyError',
        'exitCodeFor',
        'formatForLlm',
        'formatMarkdown',
        'formatPanel',
        'fromDict',
        'guardStream',
        'httpResponseFor',
        'httpStatusFor',
        'problemDetails',
        'toDict',
        'toErrorReport',
        'toWireError',
        'toolResultFor',
        'withClassifiedErrors',
      ],
      types: [
        'AttemptContext',
        'AttemptRecord',
        'ClassifyErrorOptions',
        'Disclosure',
        'DisclosureOptions',
        'FaultlineContextErrorOptions',
        'FaultlineErrorOptions',
        'GuardStreamOptions',
        'GuardedStream',
        'HttpErrorResponse',
        'InferenceFamily',
        'PanelOptions',
        'ProblemDetails',
        'ProblemDetailsOptions',
        'ReportSource',
        'RetryEvent',
        'RetryOptions',
        'StreamChunk',
        'StreamResultMethod',
        'ToolResult',
        'ToolResultOptions',
        'WireError',
        'WithClassifiedErrorsOptions',
      ],
    });
  });
  it('@faultline/render/toolkit', () => {
    expect(exportList(entry1, new URL('./toolkit.ts', import.meta.url))).toEqual({
      values: [
        'CLASSIFY_ERROR_OPTION_KEYS',
        'DEFAULT_STREAM_IDLE_TIMEOUT_MS',
        'GUARD_STREAM_OPTION_KEYS',
        'RETRY_OPTION_KEYS',
        'WITH_CLASSIFIED_ERRORS_OPTION_KEYS',
        'bindWithClassifiedErrors',
        'checkOptionKeys',
        'chunkScan',
        'controllerAbortEndsRead',
        'controllerRelease',
        'errorFromMetadata',
        'nearestFaultlineError',
        'nearestOption',
        'safeFromDict',
        'scrubIdentifiers',
        'scrubSecrets',
        'unknownOption',
        'unrecoverableReport',
      ],
      types: ['BoundWithClassifiedErrors', 'ChunkFacts', 'ChunkScanCallbacks', 'OptionKeys'],
    });
  });
  it('@faultline/render/adapter', () => {
    expect(exportList(entry2, new URL('./adapter.ts', import.meta.url))).toEqual({
      values: [
        'DEFAULT_STREAM_IDLE_TIMEOUT_MS',
        'GUARD_STREAM_OPTION_KEYS',
        'WITH_CLASSIFIED_ERRORS_OPTION_KEYS',
        'bindWithClassifiedErrors',
        'checkOptionKeys',
        'chunkScan',
        'controllerAbortEndsRead',
        'controllerRelease',
        'guardStream',
      ],
      types: [
        'BoundWithClassifiedErrors',
        'ChunkFacts',
        'ChunkScanCallbacks',
        'GuardStreamOptions',
        'GuardedStream',
        'OptionKeys',
        'StreamChunk',
        'StreamResultMethod',
      ],
    });
  });
});
