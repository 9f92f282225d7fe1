import type { Extractor } from '@faultline/classify';
import { type LoopbackServer, type Scenario, startLoopbackServer } from '@faultline/llm-mock';
import { FaultlineError } from '@faultline/render';
import type { BoundWithClassifiedErrors } from '@faultline/render/toolkit';
import type { ProviderDriver, SdkRetries } from './define.ts';
import {
  adapterPackageOf,
  type LoopbackProtocol,
  PROVIDER_NAMES,
  type ProviderEntry,
  providerEntry,
} from './provider-list.ts';

/**
 * Imports an SDK by its npm name. The SDK resolves from the module that calls `import()`: the
 * CLI's own importer loads the SDK versions the CLI depends on (the newest majors that support
 * Node 20), and a workspace tool passes its own importer to drive the versions it pins.
 */
export type SdkImporter = (specifier: string) => Promise<unknown>;

const cliImport: SdkImporter = (specifier) => import(specifier);

/** The pieces of an `@faultline/extract-<provider>` package the driver uses. */
export interface ProviderAdapter {
  readonly extractor: Extractor;
  readonly withClassifiedErrors: BoundWithClassifiedErrors;
  /** Everything the package exports (its stream guard, its fetch client, …). */
  readonly exports: Readonly<Record<string, unknown>>;
}

/** A provider ready to drive: its providers.json entry, driver module, loaded SDK and adapter. */
export interface LoadedProvider {
  readonly entry: ProviderEntry;
  readonly driver: ProviderDriver;
  /** The SDK module (undefined for a fetch-based provider). */
  readonly sdk: unknown;
  readonly adapter: ProviderAdapter;
}

function isExtractor(value: unknown): value is Extractor {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { extract?: unknown }).extract === 'function' &&
    typeof (value as { provider?: unknown }).provider === 'string'
  );
}

function isDriver(value: unknown): value is ProviderDriver {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { call?: unknown }).call === 'function' &&
    typeof (value as { operation?: unknown }).operation === 'function' &&
    typeof (value as { model?: unknown }).model === 'string'
  );
}

/** `load(key)` once per key; a failed load is not remembered (the next call tries again). */
function once<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let pending = cache.get(key);
  if (pending === undefined) {
    pending = load();
    pending.catch(() => cache.delete(key));
    cache.set(key, pending);
  }
  return pending;
}

function unknownProvider(name: string): Error {
  return new Error(
    `scenario driver: unknown provider "${name}"; providers.json lists ${PROVIDER_NAMES.join(', ')}`,
  );
}

/**
 * A provider SDK the driver needs is not installed. `@faultline/cli` lists the SDKs as optional
 * peers (classify and mock need none of them); `@faultline/demo` installs them all.
 */
export class SdkNotInstalled extends Error {
  readonly sdk: string;
  constructor(sdk: string, options?: { cause?: unknown }) {
    super(`the ${sdk} SDK is not installed`, options);
    this.name = 'SdkNotInstalled';
    this.sdk = sdk;
  }
}

/** Node's "cannot find package <sdk>" (ERR_MODULE_NOT_FOUND naming it), not a failure inside it. */
function isMissing(error: unknown, sdk: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${sdk}'`);
}

const drivers = new Map<string, Promise<ProviderDriver>>();

/** The driver module of a provider in providers.json (no SDK and no adapter loaded). */
export function loadDriver(name: string): Promise<ProviderDriver> {
  if (providerEntry(name) === undefined) return Promise.reject(unknownProvider(name));
  return once(drivers, name, () => importDriver(name));
}

/** The driver module of `name`: `providers/<name>.ts` (tsup bundles every file of the folder). */
async function importDriver(name: string): Promise<ProviderDriver> {
  let module: { default?: unknown };
  try {
    module = (await import(`./providers/${name}.ts`)) as { default?: unknown };
  } catch (error) {
    throw new Error(
      `scenario driver: no driver module for provider "${name}" (write packages/cli/src/driver/providers/${name}.ts; pnpm new-provider writes it for a fetch-based provider and takes it with --driver for an SDK)`,
      { cause: error },
    );
  }
  if (!isDriver(module.default)) {
    throw new Error(`scenario driver: providers/${name}.ts does not default-export defineDriver({ … })`);
  }
  return module.default;
}

const adapters = new Map<string, Promise<ProviderAdapter>>();

/**
 * The extractor and bound `withClassifiedErrors` of `@faultline/extract-<name>` (its SDK is not
 * loaded), or a rejection saying what is missing.
 */
export function loadAdapter(name: string): Promise<ProviderAdapter> {
  return once(adapters, name, () => importAdapter(name));
}

async function importAdapter(name: string): Promise<ProviderAdapter> {
  const specifier = adapterPackageOf(name);
  let exports: Record<string, unknown>;
  try {
    exports = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`scenario driver: cannot load ${specifier}`, { cause: error });
  }
  const withClassifiedErrors = exports.withClassifiedErrors;
  // Every adapter exports its extractor as `extractor` (the common adapter set tools/parity checks).
  const extractor = exports.extractor;
  if (typeof withClassifiedErrors !== 'function' || !isExtractor(extractor)) {
    throw new Error(`scenario driver: ${specifier} exports no extractor and withClassifiedErrors`);
  }
  return {
    extractor,
    withClassifiedErrors: withClassifiedErrors as BoundWithClassifiedErrors,
    exports,
  };
}

const loaded = new WeakMap<SdkImporter, Map<string, Promise<LoadedProvider>>>();

/**
 * Loads what driving `name` needs, once per importer: its driver module, its adapter and its SDK.
 * Nothing is imported before a provider is driven, and every load finishes before any call's time
 * limit starts (a large ESM SDK such as @mistralai/mistralai can take seconds on a busy machine).
 */
export function loadProvider(name: string, importSdk: SdkImporter = cliImport): Promise<LoadedProvider> {
  let cache = loaded.get(importSdk);
  if (cache === undefined) {
    cache = new Map();
    loaded.set(importSdk, cache);
  }
  return once(cache, name, async () => {
    const entry = providerEntry(name);
    if (entry === undefined) throw unknownProvider(name);
    const [driver, adapter, sdk] = await Promise.all([
      loadDriver(name),
      loadAdapter(name),
      entry.sdk === null
        ? undefined
        : importSdk(entry.sdk).catch((error: unknown) => {
            const sdk = entry.sdk as string;
            throw isMissing(error, sdk) ? new SdkNotInstalled(sdk, { cause: error }) : error;
          }),
    ]);
    return { entry, driver, adapter, sdk };
  });
}

/** What a driven call asks for: the provider, and the scenario's `api` and `stream`. */
export interface DrivenRequest {
  readonly provider: string;
  readonly api?: string | undefined;
  readonly stream?: boolean | undefined;
}

export interface CallOptions {
  /** The client's own request timeout and the stream guards' idle limit, in ms. Default 1500. */
  readonly timeoutMs?: number | undefined;
  /** Passed to the client (and, by driveScenario, to faultline). */
  readonly signal?: AbortSignal | undefined;
  /**
   * The SDK's own retries: `off` (default; faultline owns retries), `default` (what a user gets
   * with no retry setting), or `enabled` (the SDK's documented retry option turned on, for SDKs
   * that retry nothing by default: @google/genai `retryOptions`, Mistral `retryConfig`).
   */
  readonly sdkRetries?: SdkRetries | undefined;
  /** Where the SDKs are imported from (default: the CLI's own dependencies). */
  readonly importSdk?: SdkImporter | undefined;
}

const DEFAULT_TIMEOUT_MS = 1500;

/**
 * Calls the provider's real client against `baseUrl` the way the request asks, draining a stream
 * through the provider's guard (SDK timeouts do not cover stream reads, and several SDKs end a
 * failed stream silently). No classification and no time limit of its own: the caller's.
 */
export async function callProvider(
  request: DrivenRequest,
  baseUrl: string,
  options: CallOptions = {},
): Promise<unknown> {
  const provider = await loadProvider(request.provider, options.importSdk);
  return callLoaded(provider, request, baseUrl, options);
}

function callLoaded(
  provider: LoadedProvider,
  request: DrivenRequest,
  baseUrl: string,
  options: CallOptions,
): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = options.signal;
  return provider.driver.call({
    sdk: provider.sdk,
    baseUrl,
    api: request.api,
    stream: request.stream,
    signal,
    timeoutMs,
    sdkRetries: options.sdkRetries ?? 'off',
    guard: { idleTimeoutMs: timeoutMs, ...(signal === undefined ? {} : { signal }) },
  });
}

/** One HTTP/1.1 server and one h2c server; each provider's calls go to the protocol providers.json names. */
export interface ScenarioServers {
  readonly http1: LoopbackServer;
  readonly h2c: LoopbackServer;
  forProtocol(protocol: LoopbackProtocol): LoopbackServer;
  /** The URL of `scenario` on the server its provider speaks to. */
  baseUrlFor(scenario: Pick<Scenario, 'provider' | 'response'>): string;
  close(): Promise<void>;
}

export async function startScenarioServers(): Promise<ScenarioServers> {
  const [http1, h2c] = await Promise.all([
    startLoopbackServer({ protocol: 'http1' }),
    startLoopbackServer({ protocol: 'h2c' }),
  ]);
  const forProtocol = (protocol: LoopbackProtocol) => (protocol === 'h2c' ? h2c : http1);
  return {
    http1,
    h2c,
    forProtocol,
    baseUrlFor(scenario) {
      return forProtocol(providerEntry(scenario.provider)?.protocol ?? 'http1').baseUrlFor(scenario);
    },
    async close() {
      await Promise.all([http1.close(), h2c.close()]);
    },
  };
}

/** Where driveScenario sends a scenario: the server of the protocol its provider speaks. */
export interface ScenarioTargets {
  forProtocol(protocol: LoopbackProtocol): Pick<LoopbackServer, 'baseUrlFor'>;
}

/** A driven call that did not settle within its hard bound: the SDK ignored the abort of its deadline. */
export class ScenarioDidNotSettle extends Error {
  override readonly name = 'ScenarioDidNotSettle';
  constructor(
    readonly scenarioId: string,
    readonly provider: string,
    readonly boundMs: number,
  ) {
    super(
      `scenario driver: ${scenarioId} (${provider}) did not settle within ${boundMs} ms: the client ignored the abort of faultline's deadline`,
    );
  }
}

export type DriveOutcome =
  | { readonly kind: 'error'; readonly error: FaultlineError }
  | { readonly kind: 'success'; readonly result: unknown };

export interface DriveOptions extends CallOptions {
  /**
   * The client's own request timeout and the stream guards' idle limit, in ms. Default 1500 where
   * the server never answers the scenario (a silent socket or a stalled stream: the timeout is what
   * it plays), and 10 000 where it answers, so that a busy machine cannot turn an answer into a timeout.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * faultline's `deadlineMs` for the call (aborts the client's signal and classifies a timeout).
   * Default four times `timeoutMs` where the server never answers, else `timeoutMs`.
   */
  readonly deadlineMs?: number | undefined;
  /**
   * The hard bound: a call not settled this long after it started rejects with
   * ScenarioDidNotSettle, naming the scenario, even when the client ignores the deadline's abort.
   * Default the deadline plus `timeoutMs` plus 5 s.
   */
  readonly boundMs?: number | undefined;
}

/** A scenario as the driver reads it. */
export type DrivenScenario = DrivenRequest & Pick<Scenario, 'id' | 'response'>;

/**
 * A client timeout that only a hang reaches, short enough that the hard bound (deadline + timeout
 * + 5 s) still names a hung scenario inside a test runner's 30 s hook.
 */
const ANSWERED_TIMEOUT_MS = 10_000;

/** Whether the loopback server never finishes the answer: only a timeout ends such a call. */
function serverStaysSilent(response: Scenario['response']): boolean {
  if (response.kind === 'socket') return response.behaviour === 'never-answer';
  if (response.kind === 'sse' || response.kind === 'ndjson' || response.kind === 'aws-event-stream')
    return response.then === 'stall';
  return false;
}

function bounded<T>(work: Promise<T>, bound: ScenarioDidNotSettle): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(bound), bound.boundMs);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/**
 * Drives one scenario through the provider's real client, wrapped in that provider's bound
 * `withClassifiedErrors` (no retries; the report names the driver's model and the SDK method),
 * and returns the classified error it raised, or its result. Every call is bounded twice:
 * faultline's `deadlineMs` aborts the client, and a hard bound rejects with ScenarioDidNotSettle
 * when a client ignores that abort, so that no caller can hang on one scenario.
 */
export async function driveScenario(
  scenario: DrivenScenario,
  servers: ScenarioTargets,
  options: DriveOptions = {},
): Promise<DriveOutcome> {
  const provider = await loadProvider(scenario.provider, options.importSdk);
  const baseUrl = servers.forProtocol(provider.entry.protocol).baseUrlFor(scenario);
  const silent = serverStaysSilent(scenario.response);
  const timeoutMs = options.timeoutMs ?? (silent ? DEFAULT_TIMEOUT_MS : ANSWERED_TIMEOUT_MS);
  const deadlineMs = options.deadlineMs ?? (silent ? timeoutMs * 4 : timeoutMs);
  const boundMs = options.boundMs ?? deadlineMs + timeoutMs + 5_000;
  const call = provider.adapter.withClassifiedErrors(
    ({ signal }) => callLoaded(provider, scenario, baseUrl, { ...options, timeoutMs, signal }),
    {
      retry: false,
      deadlineMs,
      model: provider.driver.model,
      operation: provider.driver.operation(scenario.api, scenario.stream),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
  );
  try {
    const result = await bounded(call, new ScenarioDidNotSettle(scenario.id, scenario.provider, boundMs));
    return { kind: 'success', result };
  } catch (error) {
    if (FaultlineError.isInstance(error)) return { kind: 'error', error };
    throw error;
  }
}

/**
 * Drives many scenarios, `concurrency` at a time, and returns the outcomes in the scenarios'
 * order. Every call is bounded (driveScenario), so a stuck scenario rejects with its name instead
 * of hanging.
 */
export async function driveAll(
  scenarios: readonly DrivenScenario[],
  servers: ScenarioTargets,
  options: DriveOptions & { readonly concurrency?: number } = {},
): Promise<DriveOutcome[]> {
  const concurrency = options.concurrency ?? 6;
  // Load every provider first, so that no call's bound pays for loading an SDK.
  await Promise.all(
    [...new Set(scenarios.map((scenario) => scenario.provider))].map((name) =>
      loadProvider(name, options.importSdk),
    ),
  );
  const outcomes: DriveOutcome[] = new Array(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const index = next;
      next += 1;
      outcomes[index] = await driveScenario(scenarios[index] as DrivenScenario, servers, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, scenarios.length) }, worker));
  return outcomes;
}
