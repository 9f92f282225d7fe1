// @faultline/cli/driver: the one scenario driver. The demo and `faultline classify` call through
// it, and so do the workspace's tests, bench, corpus and reliability suite (tools/scenario-driver
// re-exports it with the SDK versions the workspace pins).
export {
  type DriverCall,
  defineDriver,
  drain,
  type GuardOptions,
  PROMPT,
  type ProviderDriver,
  type SdkRetries,
} from './define.ts';
export {
  type CallOptions,
  callProvider,
  type DrivenRequest,
  type DrivenScenario,
  type DriveOptions,
  type DriveOutcome,
  driveAll,
  driveScenario,
  type LoadedProvider,
  loadAdapter,
  loadDriver,
  loadProvider,
  type ProviderAdapter,
  ScenarioDidNotSettle,
  type ScenarioServers,
  type ScenarioTargets,
  type SdkImporter,
  SdkNotInstalled,
  startScenarioServers,
} from './drive.ts';
export {
  adapterPackageOf,
  type LoopbackProtocol,
  PROVIDER_NAMES,
  PROVIDERS,
  type ProviderEntry,
  providerEntry,
} from './provider-list.ts';
