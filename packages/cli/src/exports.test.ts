import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry1 from './driver/index.ts';
import * as entry0 from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/cli', () => {
    expect(exportList(entry0, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'classifyThroughSdk',
        'createProgram',
        'demoLabels',
        'detectLoggedProvider',
        'detectProvider',
        'formatDemoTable',
        'inputFormats',
        'loggedError',
        'mockCommand',
        'outputFormats',
        'parseHeaderLines',
        'renderReport',
        'responseFromLoggedError',
        'runCli',
        'runDemo',
        'version',
      ],
      types: [
        'CallContext',
        'CapturedResponse',
        'ClassifyOptions',
        'Colors',
        'DemoOptions',
        'DemoOutcome',
        'DemoResult',
        'InputFormat',
        'MockOptions',
        'OutputFormat',
        'TerminalStreams',
      ],
    });
  });
  it('@faultline/cli/driver', () => {
    expect(exportList(entry1, new URL('./driver/index.ts', import.meta.url))).toEqual({
      values: [
        'PROMPT',
        'PROVIDERS',
        'PROVIDER_NAMES',
        'ScenarioDidNotSettle',
        'SdkNotInstalled',
        'adapterPackageOf',
        'callProvider',
        'defineDriver',
        'drain',
        'driveAll',
        'driveScenario',
        'loadAdapter',
        'loadDriver',
        'loadProvider',
        'providerEntry',
        'startScenarioServers',
      ],
      types: [
        'CallOptions',
        'DriveOptions',
        'DriveOutcome',
        'DrivenRequest',
        'DrivenScenario',
        'DriverCall',
        'GuardOptions',
        'LoadedProvider',
        'LoopbackProtocol',
        'ProviderAdapter',
        'ProviderDriver',
        'ProviderEntry',
        'ScenarioServers',
        'ScenarioTargets',
        'SdkImporter',
        'SdkRetries',
      ],
    });
  });
});
