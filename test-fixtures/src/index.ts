export { openaiChatCompletion } from './answers.ts';
export { type DocExample, docExamples, repoRoot } from './doc-examples.ts';
export type {
  BaseUrlOptions,
  DecodedEventStreamMessage,
  LoopbackProtocol,
  LoopbackServer,
  LoopbackServerOptions,
  RecordedRequest,
} from './loopback-server.ts';
export {
  bigBody,
  decodeEventStreamMessages,
  encodeEventStreamMessage,
  recordedBodyLimitBytes,
  startLoopbackServer,
  streamEventDelayMilliseconds,
  unresolvableHost,
  withLoopback,
} from './loopback-server.ts';
export type { ResolvedExpectation, ScenarioLoadOptions } from './scenario.ts';
export {
  AwsEventStreamResponseScenario,
  DnsFailureResponseScenario,
  expectedFor,
  HttpResponseScenario,
  loadProviderCoverage,
  loadScenario,
  loadScenarios,
  ProviderCoverage,
  readScenarioFile,
  Scenario,
  ScenarioExpectation,
  ScenarioResponse,
  ScenarioSdkExpectation,
  SocketResponseScenario,
  SseResponseScenario,
  scenariosDir,
} from './scenario.ts';

/**
 * The extractor crashes recorded since the last call (by the repository's vitest setup), emptied:
 * for a test that crashes an extractor on purpose. Any crash left unread fails the test.
 */
export function takeExtractorCrashes(): Array<{ provider: string; thrown: unknown }> {
  const crashes = (globalThis as Record<symbol, unknown>)[Symbol.for('faultline.extractorCrashes')];
  return Array.isArray(crashes) ? crashes.splice(0) : [];
}
