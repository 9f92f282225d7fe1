// biome-ignore-all lint/suspicious/noThenProperty: `then` is the script format's field name (data, never awaited)
import { nearestOption } from '@faultline/render/toolkit';
import * as v from 'valibot';

const wholeNumber = (minimum: number, maximum: number) =>
  v.pipe(v.number(), v.integer(), v.minValue(minimum), v.maxValue(maximum));

const Repeat = {
  /** Wait this long before answering (the answer's start; stream chunks follow 15 ms apart). */
  latencyMs: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(600_000))),
  /** Play this step for this many requests in a row (default 1). */
  times: v.optional(wholeNumber(1, 1_000_000)),
};
const Headers = v.record(v.string(), v.string());

/** A healthy answer in the provider's format (`reply` overrides the server's reply text). */
export const OkStep = v.strictObject({ kind: v.literal('ok'), reply: v.optional(v.string()), ...Repeat });
/** A named failure from the catalogue (`<provider>/<name>`, see the README's table). */
export const ScenarioStep = v.strictObject({
  kind: v.literal('scenario'),
  id: v.pipe(v.string(), v.minLength(3)),
  ...Repeat,
});
/** An error status in the provider's own error format, with an optional Retry-After (seconds). */
export const StatusStep = v.strictObject({
  kind: v.literal('status'),
  status: wholeNumber(400, 599),
  retryAfter: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0))),
  message: v.optional(v.string()),
  /** Replaces the provider-format body verbatim. */
  body: v.optional(v.string()),
  headers: v.optional(Headers),
  ...Repeat,
});
/** A healthy stream that delivers `afterChunks` content chunks, then is cut, stalls, or sends the provider's error event. */
export const StreamStep = v.strictObject({
  kind: v.literal('stream'),
  afterChunks: wholeNumber(0, 10_000),
  then: v.picklist(['cut', 'stall', 'error']),
  ...Repeat,
});
/** The request is read and never answered (no status, no byte) until the client gives up. */
export const StallStep = v.strictObject({ kind: v.literal('stall'), ...Repeat });
/** The connection is dropped after the request was read (ECONNRESET / "socket hang up"). */
export const ResetStep = v.strictObject({ kind: v.literal('reset'), ...Repeat });
/** A status line and half a body, then the connection is dropped. */
export const CutStep = v.strictObject({
  kind: v.literal('cut'),
  status: v.optional(wholeNumber(200, 599)),
  ...Repeat,
});

export const Step = v.variant('kind', [
  OkStep,
  ScenarioStep,
  StatusStep,
  StreamStep,
  StallStep,
  ResetStep,
  CutStep,
]);
export type Step = v.InferOutput<typeof Step>;

/** Requests the queue does not cover fail with `probability`, drawing a fault from `faults` (seeded, reproducible). */
export const Chaos = v.strictObject({
  probability: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  seed: v.optional(v.pipe(v.number(), v.safeInteger())),
  faults: v.pipe(v.array(Step), v.minLength(1)),
});
export type Chaos = v.InferOutput<typeof Chaos>;

/**
 * A rate limit the provider enforces before anything else: at most `requests` per fixed window of
 * `windowMs` (windows start when the limit is set). A request beyond it is answered 429 in the
 * provider's format with a whole-second `retry-after` and the provider's rate-limit headers
 * (`x-ratelimit-*`, or `anthropic-ratelimit-*` for Anthropic); every answer within it carries the
 * same headers with what is left. Answers within the limit play the script as usual.
 */
export const RateLimit = v.object({
  requests: wholeNumber(1, 1_000_000),
  windowMs: wholeNumber(1, 86_400_000),
});
export type RateLimit = v.InferOutput<typeof RateLimit>;

/** What one provider answers: `steps` in order, then `chaos` (if any), then healthy answers. */
export const Script = v.strictObject({
  steps: v.optional(v.array(Step)),
  chaos: v.optional(Chaos),
  rateLimit: v.optional(RateLimit),
  /** The text of healthy answers (split into stream chunks at spaces). */
  reply: v.optional(v.string()),
});
export type Script = v.InferOutput<typeof Script>;

const STEP_KEYS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  [OkStep, ScenarioStep, StatusStep, StreamStep, StallStep, ResetStep, CutStep].map((step) => [
    step.entries.kind.literal,
    Object.keys(step.entries),
  ]),
);

/** The keys valid where `path` points in a script: the script's, its chaos's, or a step's (by its kind). */
function keysAt(script: unknown, path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return Object.keys(Script.entries);
  if (path.length === 1 && path[0] === 'chaos') return Object.keys(Chaos.entries);
  const kind = (valueAt(script, path) as { kind?: unknown } | undefined)?.kind;
  return typeof kind === 'string' ? (STEP_KEYS[kind] ?? []) : [];
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = root;
  for (const segment of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[segment];
  return value;
}

/**
 * Parses a script (an object, or a bare array of steps); throws a TypeError listing every problem.
 * The schemas are strict: a misspelt key (`retryAfterSeconds` for `retryAfter`) would otherwise be
 * dropped, and the mock would answer something else than the test says; it is named with the
 * nearest valid key. valibot stops at an object's first unknown key, so every unknown key of that
 * object is listed from the object itself.
 */
export function parseScript(data: unknown): Script {
  const script = Array.isArray(data) ? { steps: data } : data;
  const parsed = v.safeParse(Script, script);
  if (parsed.success) return parsed.output;
  const problems = parsed.issues.flatMap((issue) => {
    const keys = (issue.path ?? []).map((item) => item.key as PropertyKey);
    const unknownKey = issue.type === 'strict_object' && issue.expected === 'never';
    const path = unknownKey ? keys.slice(0, -1) : keys;
    const where = path.map(String).join('.') || '(root)';
    if (!unknownKey) return [`  - ${where}: ${issue.message}`];
    const known = keysAt(script, path);
    const value = valueAt(script, path);
    const unknown = Object.keys(value as object).filter((key) => !known.includes(key));
    return unknown.map((key) => {
      const nearest = nearestOption(key, known);
      const hint =
        nearest === undefined
          ? `expected one of ${known.map((name) => `"${name}"`).join(', ')}`
          : `did you mean "${nearest}"?`;
      return `  - ${where}: unknown key "${key.slice(0, 60)}"; ${hint}`;
    });
  });
  throw new TypeError(`invalid llm-mock script:\n${problems.join('\n')}`);
}

/** Builders for script steps: `fault.status(429, { retryAfter: 1, times: 2 })`, then `fault.ok()`. */
export const fault = {
  ok: (options: Omit<v.InferOutput<typeof OkStep>, 'kind'> = {}): Step => ({ kind: 'ok', ...options }),
  scenario: (id: string, options: Omit<v.InferOutput<typeof ScenarioStep>, 'kind' | 'id'> = {}): Step => ({
    kind: 'scenario',
    id,
    ...options,
  }),
  status: (
    status: number,
    options: Omit<v.InferOutput<typeof StatusStep>, 'kind' | 'status'> = {},
  ): Step => ({
    kind: 'status',
    status,
    ...options,
  }),
  streamCut: (afterChunks: number, options: { latencyMs?: number; times?: number } = {}): Step => ({
    kind: 'stream',
    afterChunks,
    then: 'cut',
    ...options,
  }),
  streamStall: (afterChunks: number, options: { latencyMs?: number; times?: number } = {}): Step => ({
    kind: 'stream',
    afterChunks,
    then: 'stall',
    ...options,
  }),
  streamError: (afterChunks: number, options: { latencyMs?: number; times?: number } = {}): Step => ({
    kind: 'stream',
    afterChunks,
    then: 'error',
    ...options,
  }),
  stall: (options: { latencyMs?: number; times?: number } = {}): Step => ({ kind: 'stall', ...options }),
  reset: (options: { latencyMs?: number; times?: number } = {}): Step => ({ kind: 'reset', ...options }),
  cut: (options: Omit<v.InferOutput<typeof CutStep>, 'kind'> = {}): Step => ({ kind: 'cut', ...options }),
} as const;

/**
 * mulberry32: a 32-bit seeded generator, so a chaos run replays exactly with the same seed.
 * Written here (six lines) rather than pulled in: reproducibility is all that is asked of it.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
