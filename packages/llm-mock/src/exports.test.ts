import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/llm-mock', () => {
    expect(exportList(entry, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'AwsEventStreamResponseScenario',
        'Chaos',
        'ClientContractError',
        'DnsFailureResponseScenario',
        'HttpResponseScenario',
        'PROVIDERS',
        'ProviderCoverage',
        'RateLimit',
        'Scenario',
        'ScenarioExpectation',
        'ScenarioResponse',
        'ScenarioSdkExpectation',
        'Script',
        'SocketResponseScenario',
        'SseResponseScenario',
        'Step',
        'StreamEnding',
        'assertClientBehaviour',
        'bigBody',
        'decodeEventStreamMessages',
        'encodeEventStreamMessage',
        'expectedFor',
        'fault',
        'isProviderKey',
        'loadProviderCoverage',
        'loadScenario',
        'loadScenarios',
        'parseScript',
        'readScenarioFile',
        'recordedBodyLimitBytes',
        'scenariosDir',
        'startLoopbackServer',
        'startMockProvider',
        'streamEventDelayMilliseconds',
        'unresolvableHost',
        'verdict',
        'withLoopback',
      ],
      types: [
        'AnswerRecord',
        'BaseUrlOptions',
        'CallAttempts',
        'DecodedEventStreamMessage',
        'Finding',
        'FindingCode',
        'LoopbackProtocol',
        'LoopbackServer',
        'LoopbackServerOptions',
        'MockProvider',
        'MockProviderOptions',
        'MockRequest',
        'ProviderKey',
        'RecordedRequest',
        'RequestShape',
        'ResolvedExpectation',
        'ScenarioLoadOptions',
        'StreamEnd',
        'Verdict',
        'VerdictOptions',
      ],
    });
  });
});
