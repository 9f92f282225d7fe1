// The loopback server and the scenario catalogue live in @faultline/llm-mock (published); this
// private package re-exports them under the names our tests have always imported, and keeps what
// only our tests need (`./stream-matrix`, which registers vitest suites).
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
