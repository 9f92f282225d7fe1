// The workspace's face of the one scenario driver, @faultline/cli/driver (shipped in the CLI,
// whose demo must run from its installed tarball). What this package adds is only which SDK
// versions are driven: the workspace pins the newest majors here (openai 7, @google/genai 3),
// while the CLI depends on the newest that still support Node 20. Each SDK is imported from this
// package when its provider is first driven, never before.
import {
  type CallOptions,
  callProvider as callWith,
  type DrivenRequest,
  type DrivenScenario,
  type DriveOptions,
  type DriveOutcome,
  driveAll as driveAllWith,
  driveScenario as driveScenarioWith,
  type LoadedProvider,
  loadProvider as loadWith,
  PROVIDER_NAMES,
  type ScenarioTargets,
  type SdkImporter,
} from '@faultline/cli/driver';
import manifest from '../package.json' with { type: 'json' };

export {
  type CallOptions,
  type DrivenRequest,
  type DrivenScenario,
  type DriveOptions,
  type DriveOutcome,
  type LoadedProvider,
  loadAdapter,
  loadDriver,
  PROMPT,
  PROVIDERS,
  type ProviderAdapter,
  type ProviderEntry,
  providerEntry,
  ScenarioDidNotSettle,
  type ScenarioServers,
  type ScenarioTargets,
  startScenarioServers,
} from '@faultline/cli/driver';

/** The exact version of `sdk` this package pins (and drives), or undefined when it pins none. */
export function pinnedSdkVersion(sdk: string): string | undefined {
  return (manifest.dependencies as Record<string, string | undefined>)[sdk];
}

/** Imports an SDK from this package: the versions the workspace pins. */
export const workspaceSdkImport: SdkImporter = (specifier) => import(specifier);

/** Every provider in providers.json, in its order. */
export const DRIVEN_PROVIDERS: readonly string[] = PROVIDER_NAMES;

/** A provider key from providers.json. */
export type DrivenProvider = string;

export function loadProvider(name: string): Promise<LoadedProvider> {
  return loadWith(name, workspaceSdkImport);
}

/** @faultline/cli/driver's callProvider, with the workspace's SDKs. */
export function callProvider(
  request: DrivenRequest,
  baseUrl: string,
  options: CallOptions = {},
): Promise<unknown> {
  return callWith(request, baseUrl, { importSdk: workspaceSdkImport, ...options });
}

/** @faultline/cli/driver's driveScenario (bounded per call), with the workspace's SDKs. */
export function driveScenario(
  scenario: DrivenScenario,
  servers: ScenarioTargets,
  options: DriveOptions = {},
): Promise<DriveOutcome> {
  return driveScenarioWith(scenario, servers, { importSdk: workspaceSdkImport, ...options });
}

/** @faultline/cli/driver's driveAll (every call bounded), with the workspace's SDKs. */
export function driveAll(
  scenarios: readonly DrivenScenario[],
  servers: ScenarioTargets,
  options: DriveOptions & { readonly concurrency?: number } = {},
): Promise<DriveOutcome[]> {
  return driveAllWith(scenarios, servers, { importSdk: workspaceSdkImport, ...options });
}
