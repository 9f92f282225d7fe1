import { join } from 'node:path';
import {
  type LoopbackServer,
  loadScenarios,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { pascalCase } from './provider-list.ts';

/** Calls a provider's real client at a base URL the way a scenario asks; resolves or rejects as the client does. */
export type ScenarioCall = (scenario: Scenario, baseUrl: string) => Promise<unknown>;

export interface ProviderDriver {
  /** Where the driver comes from, for messages. */
  readonly source: string;
  readonly protocol: 'http1' | 'h2c';
  readonly call: ScenarioCall;
}

/** One real error the provider's client threw at a scenario whose body carried a planted canary. */
export interface RealError {
  readonly provider: string;
  readonly scenarioId: string;
  readonly thrown: unknown;
  /** The canary planted in the body, or undefined when the body was not a JSON object. */
  readonly canary: string | undefined;
  /** The body as the server sent it. */
  readonly body: string;
  /** Calls the client again at the same scenario (for the bound `withClassifiedErrors`). */
  readonly callAgain: () => Promise<unknown>;
}

type DrivenModule = {
  DRIVEN_PROVIDERS: readonly string[];
  providerEntry(name: string): { readonly protocol: 'http1' | 'h2c' } | undefined;
  callProvider(scenario: Scenario, baseUrl: string, options?: { timeoutMs?: number }): Promise<unknown>;
};

let drivenModule: Promise<DrivenModule | undefined> | undefined;
let scenarioDriverLoadError: string | undefined;

/** tools/scenario-driver, or undefined when it cannot load (e.g. a provider package it imports is gone). */
function loadScenarioDriver(): Promise<DrivenModule | undefined> {
  drivenModule ??= import('@faultline/scenario-driver').then(
    (module) => module as unknown as DrivenModule,
    (error: unknown) => {
      scenarioDriverLoadError = String((error as Error)?.message ?? error).split('\n')[0];
      return undefined;
    },
  );
  return drivenModule;
}

/** Why tools/scenario-driver could not be loaded, when it could not. */
export function scenarioDriverProblem(): string | undefined {
  return scenarioDriverLoadError;
}

/**
 * How parity calls a provider's real client: a fetch-based provider's own `fetch<Pascal>` export
 * (the scaffolder generates one), else tools/scenario-driver's real-SDK call; undefined when
 * neither exists (the provider's own tests still run its SDK). Only HTTP scenarios are driven,
 * and they answer at once: the long client timeout only keeps a loaded CI machine (every
 * package's tests at once) from turning an answer into a timeout.
 */
export async function driverFor(
  provider: string,
  providerModule: Record<string, unknown> | undefined,
): Promise<ProviderDriver | undefined> {
  const fetchName = `fetch${pascalCase(provider)}`;
  const fetchClient = providerModule?.[fetchName];
  if (typeof fetchClient === 'function') {
    return {
      source: `${fetchName} (the package's own client)`,
      protocol: 'http1',
      call: (_scenario, baseUrl) =>
        (fetchClient as (url: string, init?: RequestInit & { timeoutMs?: number }) => Promise<unknown>)(
          `${baseUrl}/v1/parity`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 20_000 },
        ),
    };
  }
  const driven = await loadScenarioDriver();
  if (driven === undefined || !driven.DRIVEN_PROVIDERS.includes(provider)) return undefined;
  return {
    source: 'tools/scenario-driver (the real SDK)',
    protocol: driven.providerEntry(provider)?.protocol ?? 'http1',
    call: (scenario, baseUrl) => driven.callProvider(scenario, baseUrl, { timeoutMs: 20_000 }),
  };
}

/** Adds `faultline_planted_raw_body: <canary>` at the top and inside `error` of a JSON object body. */
export function plantCanary(body: string, canary: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const planted: Record<string, unknown> = {
    ...(parsed as Record<string, unknown>),
    faultline_planted_raw_body: canary,
  };
  const inner = planted.error;
  if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
    planted.error = { ...(inner as Record<string, unknown>), faultline_planted_raw_body: canary };
  }
  return JSON.stringify(planted);
}

export interface Servers {
  readonly http1: LoopbackServer;
  readonly h2c: LoopbackServer;
  close(): Promise<void>;
}

export async function startServers(): Promise<Servers> {
  const [http1, h2c] = await Promise.all([
    startLoopbackServer({ protocol: 'http1' }),
    startLoopbackServer({ protocol: 'h2c' }),
  ]);
  return {
    http1,
    h2c,
    close: async () => {
      await Promise.all([http1.close(), h2c.close()]);
    },
  };
}

function settle(promise: () => Promise<unknown>): Promise<{ thrown: boolean; value: unknown }> {
  return promise().then(
    (value) => ({ thrown: false, value }),
    (value: unknown) => ({ thrown: true, value }),
  );
}

/**
 * The real errors the provider's client throws at each of its HTTP error scenarios (status >= 400),
 * each body with a planted canary when it is a JSON object. Scenarios the client does not throw on
 * are left out.
 */
export async function collectRealErrors(
  repositoryRoot: string,
  provider: string,
  driver: ProviderDriver,
  servers: Servers,
  options: { limit?: number } = {},
): Promise<RealError[]> {
  const scenarios = loadScenarios(provider, {
    directory: join(repositoryRoot, 'packages', 'llm-mock', 'scenarios'),
  });
  const server = driver.protocol === 'h2c' ? servers.h2c : servers.http1;
  const errors: RealError[] = [];
  for (const scenario of scenarios) {
    if (errors.length >= (options.limit ?? Number.POSITIVE_INFINITY)) break;
    const response = scenario.response;
    if (response.kind !== 'http' || response.status < 400) continue;
    const canary = `PLANTED-RAW-BODY-${scenario.id.replace(/[^a-z0-9]/gi, '-')}`;
    const plantedText = plantCanary(response.body, canary);
    const planted: Scenario =
      plantedText === undefined ? scenario : { ...scenario, response: { ...response, body: plantedText } };
    const baseUrl = server.baseUrlFor(planted);
    const callAgain = () => driver.call(planted, baseUrl);
    const outcome = await settle(callAgain);
    if (!outcome.thrown) continue;
    errors.push({
      provider,
      scenarioId: scenario.id,
      thrown: outcome.value,
      canary: plantedText === undefined ? undefined : canary,
      body: plantedText ?? response.body,
      callAgain,
    });
  }
  return errors;
}
