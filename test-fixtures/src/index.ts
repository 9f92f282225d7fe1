// The loopback server and the scenario catalogue live in @faultline/llm-mock (published); this
// private package re-exports them under the names our tests have always imported, and keeps what
// only our tests need (`./stream-matrix`, `./option-matrix`, which register vitest suites).

export type {
  BaseUrlOptions,
  DecodedEventStreamMessage,
  LoopbackProtocol,
  LoopbackServer,
  LoopbackServerOptions,
  RecordedRequest,
  ResolvedExpectation,
  ScenarioLoadOptions,
} from '@faultline/llm-mock';
export {
  AwsEventStreamResponseScenario,
  bigBody,
  DnsFailureResponseScenario,
  decodeEventStreamMessages,
  encodeEventStreamMessage,
  expectedFor,
  HttpResponseScenario,
  loadProviderCoverage,
  loadScenario,
  loadScenarios,
  ProviderCoverage,
  readScenarioFile,
  recordedBodyLimitBytes,
  Scenario,
  ScenarioExpectation,
  ScenarioResponse,
  ScenarioSdkExpectation,
  SocketResponseScenario,
  SseResponseScenario,
  scenariosDir,
  startLoopbackServer,
  streamEventDelayMilliseconds,
  unresolvableHost,
  withLoopback,
} from '@faultline/llm-mock';
export { openaiChatCompletion } from './answers.ts';
export { type DocExample, docExamples, repoRoot } from './doc-examples.ts';

/**
 * The extractor crashes recorded since the last call (by the repository's vitest setup), emptied:
 * for a test that crashes an extractor on purpose. Any crash left unread fails the test.
 */
export function takeExtractorCrashes(): Array<{ provider: string; thrown: unknown }> {
  const crashes = (globalThis as Record<symbol, unknown>)[Symbol.for('faultline.extractorCrashes')];
  return Array.isArray(crashes) ? crashes.splice(0) : [];
}

/**
 * A copy of `value` (a report) with what differs between runs of the loopback server made fixed:
 * its ports and the per-registration `/s/<token>` path. For comparing reports against a recorded
 * fixture (the error-path parity snapshots of issue 17).
 */
export function stableReport<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, field: unknown) =>
      typeof field === 'string'
        ? field
            .replace(/(127\.0\.0\.1|localhost|\[::1\]):\d+/g, '$1:<port>')
            .replace(/\/s\/[A-Za-z0-9_-]+/g, '/s/<token>')
        : field,
    ),
  ) as T;
}
