// The loopback server and the scenario catalogue live in @faultline/llm-mock (published); this
// private package re-exports them under the names our tests have always imported, and keeps what
// only our tests need (`./stream-matrix`, `./option-matrix`, which register vitest suites).

import type { Scenario } from '@faultline/llm-mock';

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

/** The client timeout of a scenario the loopback server never answers: the timeout under test. */
const SILENT_SCENARIO_TIMEOUT_MS = 400;

/**
 * A client timeout long enough that only a hang reaches it, and short enough that such a hang
 * still fails as this scenario's own timeout inside vitest's 30 s test timeout.
 */
const ANSWERED_SCENARIO_TIMEOUT_MS = 15_000;

/**
 * Whether the loopback server never finishes this scenario's answer (a socket that never answers, or a
 * stream that stalls): only the client's or the guard's timeout ends such a call.
 */
export function serverStaysSilent({ response }: Pick<Scenario, 'response'>): boolean {
  if (response.kind === 'socket') return response.behaviour === 'never-answer';
  if (response.kind === 'sse' || response.kind === 'ndjson' || response.kind === 'aws-event-stream')
    return response.then === 'stall';
  return false;
}

/**
 * The client timeout for a scenario: short only where the server never answers, so the timeout
 * is the thing tested and nothing else can win the race; long everywhere else, so that a busy
 * machine cannot turn a status the server does send into the client's timeout.
 */
export function clientTimeoutFor(scenario: Pick<Scenario, 'response'>): number {
  return serverStaysSilent(scenario) ? SILENT_SCENARIO_TIMEOUT_MS : ANSWERED_SCENARIO_TIMEOUT_MS;
}

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
 * its ports, the per-registration `/s/<token>` path and the clock (`retryableAt`). For comparing reports against a recorded
 * fixture (the error-path parity snapshots).
 */
export function stableReport<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, field: unknown) =>
      // The wait's end is the time of the failure plus the wait: a pinned report holds its shape.
      key === 'retryableAt' && typeof field === 'string' && !Number.isNaN(Date.parse(field))
        ? '<failure time + retryAfterSeconds>'
        : typeof field === 'string'
          ? field
              .replace(/(127\.0\.0\.1|localhost|\[::1\]):\d+/g, '$1:<port>')
              .replace(/\/s\/[A-Za-z0-9_-]+/g, '/s/<token>')
          : field,
    ),
  ) as T;
}
