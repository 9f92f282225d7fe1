// The loopback server and the scenario catalogue live in @faultline/llm-mock (published); this
// private package re-exports them under the names our tests have always imported, and keeps what
// only our tests need (`./stream-matrix` and `./option-matrix`, which register vitest suites, the doc-example
// runner, canned answers).

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
