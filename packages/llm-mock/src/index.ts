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
  StreamEnding,
  scenariosDir,
} from './scenario.ts';
