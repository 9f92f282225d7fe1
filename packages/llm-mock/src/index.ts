export type { DecodedEventStreamMessage } from './event-stream.ts';
export { decodeEventStreamMessages, encodeEventStreamMessage } from './event-stream.ts';
export type {
  BaseUrlOptions,
  LoopbackProtocol,
  LoopbackServer,
  LoopbackServerOptions,
  RecordedRequest,
} from './loopback-server.ts';
export {
  bigBody,
  recordedBodyLimitBytes,
  startLoopbackServer,
  streamEventDelayMilliseconds,
  unresolvableHost,
  withLoopback,
} from './loopback-server.ts';
export type {
  AnswerRecord,
  MockProvider,
  MockProviderOptions,
  MockRequest,
} from './mock-provider.ts';
export { startMockProvider } from './mock-provider.ts';
export type { ProviderKey, RequestShape, StreamEnd } from './providers.ts';
export { isProviderKey, PROVIDERS } from './providers.ts';
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
// The step schemas, which the builders' option types are read from.
export {
  Chaos,
  CutStep,
  fault,
  OkStep,
  parseScript,
  RateLimit,
  ResetStep,
  ScenarioStep,
  Script,
  StallStep,
  StatusStep,
  Step,
  StreamStep,
} from './script.ts';
export type { CallAttempts, Finding, FindingCode, Verdict, VerdictOptions } from './verdict.ts';
export { assertClientBehaviour, ClientContractError, verdict } from './verdict.ts';
