import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCategory, FailureReason, UserActionKind } from '@faultline/classify';
import { checkOptionKeys } from '@faultline/render/toolkit';
import * as v from 'valibot';
import { SCENARIO_LOAD_OPTION_KEYS } from './option-keys.ts';

/** Absolute path of the catalogue (`scenarios/` in this package), where one JSON file describes one scenario. */
export const scenariosDir: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');

const Headers = v.record(v.string(), v.string());
const status = v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599));
export const StreamEnding = v.picklist(['end', 'cut', 'stall']);
export type StreamEnding = v.InferOutput<typeof StreamEnding>;

/** A plain HTTP answer; `body` is sent verbatim (JSON text, HTML, '', truncated JSON). */
export const HttpResponseScenario = v.object({
  kind: v.literal('http'),
  status,
  headers: v.optional(Headers),
  body: v.string(),
});

/** A server-sent event stream, then a normal end, a cut socket or a silent stall. */
export const SseResponseScenario = v.object({
  kind: v.literal('sse'),
  status: v.optional(status),
  headers: v.optional(Headers),
  events: v.array(v.object({ event: v.optional(v.string()), data: v.string(), id: v.optional(v.string()) })),
  // biome-ignore lint/suspicious/noThenProperty: `then` is the scenario contract's field name (data, never awaited)
  then: StreamEnding,
});

/**
 * Newline-delimited JSON (`application/x-ndjson`), one line per write, then a normal end, a cut
 * socket or a silent stall: how Ollama streams `/api/chat` and `/api/generate` (an error mid-stream
 * is one more line, `{"error":"..."}`, after the 200).
 */
export const NdjsonResponseScenario = v.object({
  kind: v.literal('ndjson'),
  status: v.optional(status),
  headers: v.optional(Headers),
  lines: v.array(v.string()),
  // biome-ignore lint/suspicious/noThenProperty: `then` is the scenario contract's field name (data, never awaited)
  then: StreamEnding,
});

/** AWS binary event-stream frames (`application/vnd.amazon.eventstream`). */
export const AwsEventStreamResponseScenario = v.object({
  kind: v.literal('aws-event-stream'),
  status: v.optional(status),
  headers: v.optional(Headers),
  messages: v.array(v.object({ headers: Headers, payload: v.string() })),
  // biome-ignore lint/suspicious/noThenProperty: `then` is the scenario contract's field name (data, never awaited)
  then: StreamEnding,
  /**
   * With `then: 'cut'`: send only the first half of the last message's bytes before cutting, so
   * the client holds a partial frame (the AWS SDK then throws "Truncated event message
   * received."). A cut on a frame boundary makes the AWS SDK end the stream without an error.
   */
  cutMidMessage: v.optional(v.boolean()),
});

/** A transport-level misbehaviour. */
export const SocketResponseScenario = v.object({
  kind: v.literal('socket'),
  behaviour: v.picklist(['refuse', 'never-answer', 'reset-after-request', 'cut-body']),
  status: v.optional(status),
  headers: v.optional(Headers),
  partialBody: v.optional(v.string()),
});

/** The base URL's host does not resolve (`no-such-host.invalid`). */
export const DnsFailureResponseScenario = v.object({ kind: v.literal('dns-failure') });

export const ScenarioResponse = v.variant('kind', [
  HttpResponseScenario,
  SseResponseScenario,
  NdjsonResponseScenario,
  AwsEventStreamResponseScenario,
  SocketResponseScenario,
  DnsFailureResponseScenario,
]);
export type ScenarioResponse = v.InferOutput<typeof ScenarioResponse>;

/** What the classification of the SDK's error must be. */
export const ScenarioExpectation = v.object({
  category: ErrorCategory,
  reason: FailureReason,
  retryable: v.boolean(),
  userAction: UserActionKind,
  /** The taxonomy's HTTP status (429, 503, 502, 500, 422). */
  httpStatus: v.pipe(v.number(), v.safeInteger()),
  retryAfterSeconds: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0))),
  /** The provider status the metadata must carry. */
  statusCode: v.optional(v.pipe(v.number(), v.safeInteger())),
  providerCode: v.optional(v.string()),
});
export type ScenarioExpectation = v.InferOutput<typeof ScenarioExpectation>;

/** A per-SDK override (keyed by devDependency alias, e.g. `genai-v1`); `skip` gives the reason. */
export const ScenarioSdkExpectation = v.object({
  ...v.partial(ScenarioExpectation).entries,
  skip: v.optional(v.string()),
});
export type ScenarioSdkExpectation = v.InferOutput<typeof ScenarioSdkExpectation>;

export const Scenario = v.object({
  /** `<provider>/<name>`, equal to the file path under `scenarios/` without `.json`. */
  id: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\/[A-Za-z0-9_.-]+$/, 'id must be "<provider>/<name>"'),
  ),
  provider: v.pipe(v.string(), v.minLength(1)),
  description: v.string(),
  /** Where the body format comes from: a doc URL or an SDK source path. */
  source: v.pipe(v.string(), v.minLength(1)),
  api: v.optional(v.string()),
  stream: v.optional(v.boolean()),
  response: ScenarioResponse,
  expected: ScenarioExpectation,
  expectedBySdk: v.optional(v.record(v.string(), ScenarioSdkExpectation)),
  /** A label when the scenario is used by the `faultline demo` table. */
  demo: v.optional(v.string()),
});
export type Scenario = v.InferOutput<typeof Scenario>;

/** `scenarios/<provider>/_coverage.json`: failure reasons that cannot happen for a provider, and why. */
export const ProviderCoverage = v.object({
  provider: v.pipe(v.string(), v.minLength(1)),
  cannotHappen: v.record(FailureReason, v.pipe(v.string(), v.minLength(1))),
});
export type ProviderCoverage = v.InferOutput<typeof ProviderCoverage>;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Where to read scenarios from; tests point this at a temporary folder. */
export interface ScenarioLoadOptions {
  /** Defaults to `scenariosDir`. */
  directory?: string;
}

function scenarioFiles(root: string, provider?: string): string[] {
  const providers =
    provider === undefined
      ? readdirSync(root)
          .filter((name) => !name.startsWith('_') && isDirectory(join(root, name)))
          .sort()
      : [provider];
  const files: string[] = [];
  for (const name of providers) {
    const directory = join(root, name);
    if (!isDirectory(directory)) continue;
    for (const file of readdirSync(directory).sort()) {
      if (file.endsWith('.json') && !file.startsWith('_')) files.push(join(directory, file));
    }
  }
  return files;
}

function formatIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.map((issue) => `  - ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`).join('\n');
}

/**
 * Read, parse and validate one scenario file (its id must equal its path under `directory`);
 * throws an error naming the file.
 */
export function readScenarioFile(path: string, options: ScenarioLoadOptions = {}): Scenario {
  checkOptionKeys('readScenarioFile', options, SCENARIO_LOAD_OPTION_KEYS);
  const displayPath = relative(options.directory ?? scenariosDir, path)
    .split(sep)
    .join('/');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`Scenario file ${path} could not be read: ${String(error)}`, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`Scenario file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = v.safeParse(Scenario, data);
  if (!parsed.success) {
    throw new Error(`Scenario file ${path} is invalid:\n${formatIssues(parsed.issues)}`, {
      cause: new v.ValiError(parsed.issues),
    });
  }
  const expectedId = displayPath.replace(/\.json$/, '');
  if (parsed.output.id !== expectedId) {
    throw new Error(
      `Scenario file ${path} has id "${parsed.output.id}", expected "${expectedId}" (its path)`,
    );
  }
  const provider = expectedId.split('/')[0];
  if (provider !== '_examples' && parsed.output.provider !== provider) {
    throw new Error(
      `Scenario file ${path} has provider "${parsed.output.provider}", expected "${provider}" (its folder)`,
    );
  }
  return parsed.output;
}

/**
 * Every scenario (or one provider's), validated and sorted by id. Files whose name starts with
 * `_` (such as `_coverage.json`) are skipped, and so are folders starting with `_` (such as
 * `_examples`) unless asked for by name. Throws an error naming the file on invalid data.
 */
export function loadScenarios(provider?: string, options: ScenarioLoadOptions = {}): Scenario[] {
  checkOptionKeys('loadScenarios', options, SCENARIO_LOAD_OPTION_KEYS);
  if (provider !== undefined && !/^[^/\\.][^/\\]*$/.test(provider)) {
    throw new Error(`Scenario provider "${provider}" must be a folder name`);
  }
  return scenarioFiles(options.directory ?? scenariosDir, provider)
    .map((path) => readScenarioFile(path, options))
    .sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
}

/** One scenario by id (`<provider>/<name>`). */
export function loadScenario(id: string, options: ScenarioLoadOptions = {}): Scenario {
  checkOptionKeys('loadScenario', options, SCENARIO_LOAD_OPTION_KEYS);
  if (!/^[^/\\]+\/[^/\\]+$/.test(id) || id.includes('..')) {
    throw new Error(`Scenario id "${id}" must be "<provider>/<name>"`);
  }
  return readScenarioFile(join(options.directory ?? scenariosDir, `${id}.json`), options);
}

/** `scenarios/<provider>/_coverage.json`, or undefined when the provider has none. */
export function loadProviderCoverage(
  provider: string,
  options: ScenarioLoadOptions = {},
): ProviderCoverage | undefined {
  checkOptionKeys('loadProviderCoverage', options, SCENARIO_LOAD_OPTION_KEYS);
  const path = join(options.directory ?? scenariosDir, provider, '_coverage.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`Coverage file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = v.safeParse(ProviderCoverage, data);
  if (!parsed.success) {
    throw new Error(`Coverage file ${path} is invalid:\n${formatIssues(parsed.issues)}`, {
      cause: new v.ValiError(parsed.issues),
    });
  }
  if (parsed.output.provider !== provider) {
    throw new Error(`Coverage file ${path} has provider "${parsed.output.provider}", expected "${provider}"`);
  }
  return parsed.output;
}

/** The resolved expectation for one SDK alias. */
export type ResolvedExpectation = ScenarioExpectation & { skip?: string };

/**
 * The scenario's `expected`, overridden by `expectedBySdk[sdkAlias]` when present. A `skip`
 * reason is carried through; the caller decides to skip the test.
 */
export function expectedFor(scenario: Scenario, sdkAlias?: string): ResolvedExpectation {
  const override = sdkAlias === undefined ? undefined : scenario.expectedBySdk?.[sdkAlias];
  if (override === undefined) return { ...scenario.expected };
  const merged: Record<string, unknown> = { ...scenario.expected };
  for (const [key, value] of Object.entries(override)) {
    if (value !== undefined) merged[key] = value;
  }
  return merged as ResolvedExpectation;
}
