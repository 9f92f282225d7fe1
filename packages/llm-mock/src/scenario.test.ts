// biome-ignore-all lint/suspicious/noThenProperty: scenario responses have a `then` field by contract
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FailureReason } from '@faultline/classify';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  expectedFor,
  loadProviderCoverage,
  loadScenario,
  loadScenarios,
  ProviderCoverage,
  Scenario,
  scenariosDir,
} from './scenario.ts';

const valid = {
  id: 'acme/rate-limit',
  provider: 'acme',
  description: 'A 429.',
  source: 'https://example.com/docs/errors',
  response: { kind: 'http', status: 429, body: '{}' },
  expected: {
    category: 'transient',
    reason: 'rate_limit',
    retryable: true,
    userAction: 'wait_and_retry',
    httpStatus: 429,
  },
};

describe('the example scenarios', () => {
  it('load, validate and sort by id', () => {
    const scenarios = loadScenarios('_examples');
    const ids = scenarios.map((scenario) => scenario.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain('_examples/http-rate-limit');
    expect(ids).not.toContain('_examples/_coverage');
    const kinds = new Set(scenarios.map((scenario) => scenario.response.kind));
    expect(kinds).toEqual(new Set(['http', 'sse', 'aws-event-stream', 'socket', 'dns-failure']));
  });

  it('are left out when every provider is loaded', () => {
    expect(loadScenarios().some((scenario) => scenario.id.startsWith('_examples/'))).toBe(false);
  });

  it('load one by id', () => {
    const scenario = loadScenario('_examples/http-rate-limit');
    expect(scenario.provider).toBe('openai');
    expect(scenario.demo).toBe('rate limit');
    expect(scenario.response).toMatchObject({ kind: 'http', status: 429 });
  });

  it('have a coverage file', () => {
    expect(loadProviderCoverage('_examples')).toEqual({
      provider: '_examples',
      cannotHappen: { billing: 'the examples have no account' },
    });
    expect(loadProviderCoverage('no-such-provider')).toBeUndefined();
  });

  it('scenariosDir is absolute', () => {
    expect(scenariosDir.startsWith('/')).toBe(true);
    expect(scenariosDir.endsWith('/llm-mock/scenarios')).toBe(true);
  });
});

describe('expectedFor', () => {
  const scenario = loadScenario('_examples/http-rate-limit');

  it('returns `expected` for an SDK without an override', () => {
    expect(expectedFor(scenario, 'openai-v7')).toEqual(scenario.expected);
    expect(expectedFor(scenario)).toEqual(scenario.expected);
  });

  it('merges the per-SDK override', () => {
    expect(expectedFor(scenario, 'openai-v5')).toEqual({ ...scenario.expected, retryAfterSeconds: 8 });
    expect(expectedFor(scenario, 'openai-v4')).toEqual({
      ...scenario.expected,
      skip: 'example of a skip reason',
    });
  });

  it('does not mutate the scenario', () => {
    const before = JSON.stringify(scenario);
    const result = expectedFor(scenario, 'openai-v5');
    result.reason = 'unknown';
    expect(JSON.stringify(scenario)).toBe(before);
  });
});

describe('the Scenario schema', () => {
  it('accepts every response kind (unknown keys are tolerated)', () => {
    const responses = [
      { kind: 'http', status: 502, body: '<html></html>' },
      { kind: 'sse', events: [{ data: '{}' }], then: 'cut' },
      {
        kind: 'aws-event-stream',
        messages: [{ headers: { ':event-type': 'x' }, payload: '{}' }],
        then: 'stall',
      },
      { kind: 'socket', behaviour: 'cut-body', status: 200, partialBody: '{"a' },
      { kind: 'dns-failure' },
    ];
    for (const response of responses)
      expect(v.safeParse(Scenario, { ...valid, response }).success).toBe(true);
  });

  it('rejects unknown enum values and missing fields', () => {
    expect(v.safeParse(Scenario, { ...valid, source: '' }).success).toBe(false);
    expect(v.safeParse(Scenario, { ...valid, expected: { ...valid.expected, reason: 'nope' } }).success).toBe(
      false,
    );
    expect(v.safeParse(Scenario, { ...valid, response: { kind: 'ftp' } }).success).toBe(false);
    expect(v.safeParse(Scenario, { ...valid, response: { kind: 'sse', events: [] } }).success).toBe(false);
  });

  it('ProviderCoverage keys are failure reasons', () => {
    expect(
      v.safeParse(ProviderCoverage, { provider: 'x', cannotHappen: { quota: 'no quota' } }).success,
    ).toBe(true);
    expect(v.safeParse(ProviderCoverage, { provider: 'x', cannotHappen: { nope: 'why' } }).success).toBe(
      false,
    );
    expect(FailureReason.options).toContain('quota');
  });
});

describe('loadScenarios on bad data', () => {
  let directory: string;
  const write = (relativePath: string, content: unknown) => {
    const path = join(directory, relativePath);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'faultline-scenarios-'));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads a valid folder and skips `_` files', () => {
    write('acme/rate-limit.json', valid);
    write('acme/_coverage.json', { provider: 'acme', cannotHappen: {} });
    write('acme/notes.txt', 'not a scenario');
    expect(loadScenarios(undefined, { directory }).map((scenario) => scenario.id)).toEqual([
      'acme/rate-limit',
    ]);
    expect(loadScenarios('missing', { directory })).toEqual([]);
  });

  it('names the file when the JSON does not parse', () => {
    const path = write('acme/broken.json', '{ "id": ');
    expect(() => loadScenarios('acme', { directory })).toThrow(`Scenario file ${path} is not valid JSON`);
  });

  it('names the file and the field when validation fails', () => {
    const path = write('acme/rate-limit.json', {
      ...valid,
      expected: { ...valid.expected, retryable: 'yes' },
    });
    expect(() => loadScenarios('acme', { directory })).toThrow(`Scenario file ${path} is invalid`);
    expect(() => loadScenarios('acme', { directory })).toThrow('expected.retryable');
  });

  it('rejects an id that does not match the path', () => {
    const path = write('acme/other-name.json', valid);
    expect(() => loadScenarios(undefined, { directory })).toThrow(
      `Scenario file ${path} has id "acme/rate-limit", expected "acme/other-name"`,
    );
  });

  it('rejects a provider that does not match the folder', () => {
    write('acme/rate-limit.json', { ...valid, provider: 'other' });
    expect(() => loadScenarios('acme', { directory })).toThrow('has provider "other", expected "acme"');
  });

  it('rejects a bad coverage file', () => {
    write('acme/_coverage.json', { provider: 'acme', cannotHappen: { nope: 'x' } });
    expect(() => loadProviderCoverage('acme', { directory })).toThrow('_coverage.json is invalid');
  });

  it('rejects ids and providers that would leave the folder', () => {
    expect(() => loadScenario('../etc/passwd', { directory })).toThrow('must be "<provider>/<name>"');
    expect(() => loadScenario('plain', { directory })).toThrow('must be "<provider>/<name>"');
    expect(() => loadScenarios('../x', { directory })).toThrow('must be a folder name');
  });
});
