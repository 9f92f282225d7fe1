import { describe, expect, it } from 'vitest';
import {
  assertClientBehaviour,
  type BaseUrlOptions,
  type Chaos,
  fault,
  type LoopbackServerOptions,
  loadProviderCoverage,
  loadScenario,
  loadScenarios,
  type MockProviderOptions,
  parseScript,
  readScenarioFile,
  type ScenarioLoadOptions,
  scenariosDir,
  startLoopbackServer,
  startMockProvider,
  type VerdictOptions,
  verdict,
  withLoopback,
} from './index.ts';
import {
  BASE_URL_OPTION_KEYS,
  LOOPBACK_SERVER_OPTION_KEYS,
  MOCK_PROVIDER_OPTION_KEYS,
  SCENARIO_LOAD_OPTION_KEYS,
  VERDICT_OPTION_KEYS,
} from './option-keys.ts';

// The types refuse what the calls refuse.
// @ts-expect-error: protocols is not an option (protocol is)
const _misnamed: LoopbackServerOptions = { protocols: 'h2c' };
// @ts-expect-error: directory is misspelt
const _misspelt: MockProviderOptions = { catalogue: { directry: '/tmp' } };

function everyKey(table: Readonly<Record<string, true>>): Record<string, undefined> {
  return Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
}

describe('unknown option keys are a TypeError at the call naming the key and the nearest valid one', () => {
  it('startLoopbackServer, withLoopback and baseUrlFor', async () => {
    await expect(startLoopbackServer({ protocols: 'h2c' } as LoopbackServerOptions)).rejects.toThrow(
      TypeError,
    );
    await expect(startLoopbackServer({ protocols: 'h2c' } as LoopbackServerOptions)).rejects.toThrow(
      'unknown option "protocols" for startLoopbackServer; did you mean "protocol"?',
    );
    let ran = false;
    await expect(
      withLoopback(
        () => {
          ran = true;
        },
        { cor: true } as LoopbackServerOptions,
      ),
    ).rejects.toThrow('unknown option "cor" for withLoopback; did you mean "cors"?');
    expect(ran).toBe(false);
    const scenario = loadScenario('openai/rate-limit-retry-after-ms');
    await withLoopback((server) => {
      expect(() => server.baseUrlFor(scenario, { prefix: '/v1' } as BaseUrlOptions)).toThrow(
        'unknown option "prefix" for baseUrlFor; did you mean "pathPrefix"?',
      );
    });
  });

  it('startMockProvider and its catalogue', async () => {
    await expect(startMockProvider({ script: {} } as MockProviderOptions)).rejects.toThrow(
      'unknown option "script" for startMockProvider; did you mean "scripts"?',
    );
    await expect(
      startMockProvider({ catalogue: { directry: scenariosDir } } as unknown as MockProviderOptions),
    ).rejects.toThrow(
      'unknown option "directry" in "catalogue" for startMockProvider; did you mean "directory"?',
    );
  });

  it('the scenario loaders', () => {
    const options = { dir: scenariosDir } as ScenarioLoadOptions;
    expect(() => loadScenarios('openai', options)).toThrow(
      'unknown option "dir" for loadScenarios; expected one of "directory"',
    );
    expect(() => loadScenario('openai/rate-limit-retry-after-ms', options)).toThrow(
      /^unknown option "dir" for loadScenario; /,
    );
    expect(() => readScenarioFile(`${scenariosDir}/openai/rate-limit-retry-after-ms.json`, options)).toThrow(
      /^unknown option "dir" for readScenarioFile; /,
    );
    expect(() => loadProviderCoverage('openai', options)).toThrow(
      /^unknown option "dir" for loadProviderCoverage; /,
    );
  });

  it('verdict and assertClientBehaviour', () => {
    expect(() => verdict([], { minAttempt: 2 } as VerdictOptions)).toThrow(
      'unknown option "minAttempt" for verdict; did you mean "minAttempts"?',
    );
    expect(() => assertClientBehaviour([], { tolerance: 5 } as VerdictOptions)).toThrow(
      'unknown option "tolerance" for assertClientBehaviour; did you mean "toleranceMs"?',
    );
  });
});

describe('a script key the mock does not know is a TypeError naming it and the nearest valid one', () => {
  it('in a step, its chaos, the script itself, and through the fault builders when scripted', async () => {
    const call = () =>
      parseScript({
        steps: [{ kind: 'status', status: 429, retryAfterSeconds: 2 }],
        chaos: {
          probability: 0.5,
          seed: 1,
          faults: [{ kind: 'stall', time: 2 }],
        },
        replies: 'hi',
      });
    expect(call).toThrow(TypeError);
    expect(call).toThrow(
      [
        'invalid llm-mock script:',
        '  - steps.0: unknown key "retryAfterSeconds"; did you mean "retryAfter"?',
        '  - chaos.faults.0: unknown key "time"; did you mean "times"?',
        '  - (root): unknown key "replies"; did you mean "reply"?',
      ].join('\n'),
    );
    const mock = await startMockProvider({ providers: ['openai'] });
    try {
      const status = fault.status(429, { retryAfterSeconds: 2 } as Parameters<typeof fault.status>[1]);
      expect(() => mock.script([status])).toThrow(
        'steps.0: unknown key "retryAfterSeconds"; did you mean "retryAfter"?',
      );
      expect(() => mock.chaos('openai', { probability: 1, faults: [fault.ok()], sead: 3 } as Chaos)).toThrow(
        'chaos: unknown key "sead"; did you mean "seed"?',
      );
    } finally {
      await mock.close();
    }
  });
});

describe('every documented key is accepted', () => {
  it('by each entry point', async () => {
    const scenario = loadScenario('openai/rate-limit-retry-after-ms', everyKey(SCENARIO_LOAD_OPTION_KEYS));
    expect(loadScenarios('openai', everyKey(SCENARIO_LOAD_OPTION_KEYS)).length).toBeGreaterThan(0);
    expect(loadProviderCoverage('openai', everyKey(SCENARIO_LOAD_OPTION_KEYS))).toBeDefined();
    await withLoopback((server) => {
      expect(server.baseUrlFor(scenario, everyKey(BASE_URL_OPTION_KEYS))).toMatch(/^http:\/\/127\.0\.0\.1:/);
    }, everyKey(LOOPBACK_SERVER_OPTION_KEYS));
    const mock = await startMockProvider({
      ...everyKey(MOCK_PROVIDER_OPTION_KEYS),
      catalogue: everyKey(SCENARIO_LOAD_OPTION_KEYS),
    });
    try {
      expect(verdict(mock, everyKey(VERDICT_OPTION_KEYS)).ok).toBe(true);
      expect(assertClientBehaviour(mock, everyKey(VERDICT_OPTION_KEYS)).ok).toBe(true);
    } finally {
      await mock.close();
    }
  });
});
