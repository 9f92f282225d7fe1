// biome-ignore-all lint/suspicious/noThenProperty: `then` is the script format's field name (data, never awaited)
import { nearestOption } from '@faultline/render/toolkit';
import { z } from 'zod';

const Repeat = {
  /** Wait this long before answering (the answer's start; stream chunks follow 15 ms apart). */
  latencyMs: z.number().nonnegative().max(600_000).optional(),
  /** Play this step for this many requests in a row (default 1). */
  times: z.number().int().positive().max(1_000_000).optional(),
};
const Headers = z.record(z.string(), z.string());

/** A healthy answer in the provider's format (`reply` overrides the server's reply text). */
export const OkStep = z.strictObject({ kind: z.literal('ok'), reply: z.string().optional(), ...Repeat });
/** A named failure from the catalogue (`<provider>/<name>`, see the README's table). */
export const ScenarioStep = z.strictObject({ kind: z.literal('scenario'), id: z.string().min(3), ...Repeat });
/** An error status in the provider's own error format, with an optional Retry-After (seconds). */
export const StatusStep = z.strictObject({
  kind: z.literal('status'),
  status: z.number().int().min(400).max(599),
  retryAfter: z.number().nonnegative().optional(),
  message: z.string().optional(),
  /** Replaces the provider-format body verbatim. */
  body: z.string().optional(),
  headers: Headers.optional(),
  ...Repeat,
});
/** A healthy stream that delivers `afterChunks` content chunks, then is cut, stalls, or sends the provider's error event. */
export const StreamStep = z.strictObject({
  kind: z.literal('stream'),
  afterChunks: z.number().int().nonnegative().max(10_000),
  then: z.enum(['cut', 'stall', 'error']),
  ...Repeat,
});
/** The request is read and never answered (no status, no byte) until the client gives up. */
export const StallStep = z.strictObject({ kind: z.literal('stall'), ...Repeat });
/** The connection is dropped after the request was read (ECONNRESET / "socket hang up"). */
export const ResetStep = z.strictObject({ kind: z.literal('reset'), ...Repeat });
/** A status line and half a body, then the connection is dropped. */
export const CutStep = z.strictObject({
  kind: z.literal('cut'),
  status: z.number().int().min(200).max(599).optional(),
  ...Repeat,
});

export const Step = z.discriminatedUnion('kind', [
  OkStep,
  ScenarioStep,
  StatusStep,
  StreamStep,
  StallStep,
  ResetStep,
  CutStep,
]);
export type Step = z.infer<typeof Step>;

/** Requests the queue does not cover fail with `probability`, drawing a fault from `faults` (seeded, reproducible). */
export const Chaos = z.strictObject({
  probability: z.number().min(0).max(1),
  seed: z.number().int().optional(),
  faults: z.array(Step).min(1),
});
export type Chaos = z.infer<typeof Chaos>;

/**
 * A rate limit the provider enforces before anything else: at most `requests` per fixed window of
 * `windowMs` (windows start when the limit is set). A request beyond it is answered 429 in the
 * provider's format with a whole-second `retry-after` and the provider's rate-limit headers
 * (`x-ratelimit-*`, or `anthropic-ratelimit-*` for Anthropic); every answer within it carries the
 * same headers with what is left. Answers within the limit play the script as usual.
 */
export const RateLimit = z.object({
  requests: z.number().int().positive().max(1_000_000),
  windowMs: z.number().int().positive().max(86_400_000),
});
export type RateLimit = z.infer<typeof RateLimit>;

/** What one provider answers: `steps` in order, then `chaos` (if any), then healthy answers. */
export const Script = z.strictObject({
  steps: z.array(Step).optional(),
  chaos: Chaos.optional(),
  rateLimit: RateLimit.optional(),
  /** The text of healthy answers (split into stream chunks at spaces). */
  reply: z.string().optional(),
});
export type Script = z.infer<typeof Script>;

const STEP_KEYS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  [OkStep, ScenarioStep, StatusStep, StreamStep, StallStep, ResetStep, CutStep].map((step) => [
    step.shape.kind.value,
    Object.keys(step.shape),
  ]),
);

/** The keys valid where `path` points in a script: the script's, its chaos's, or a step's (by its kind). */
function keysAt(script: unknown, path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return Object.keys(Script.shape);
  if (path.length === 1 && path[0] === 'chaos') return Object.keys(Chaos.shape);
  let value: unknown = script;
  for (const segment of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[segment];
  const kind = (value as { kind?: unknown } | undefined)?.kind;
  return typeof kind === 'string' ? (STEP_KEYS[kind] ?? []) : [];
}

/**
 * Parses a script (an object, or a bare array of steps); throws a TypeError listing every problem.
 * The schemas are strict: a misspelt key (`retryAfterSeconds` for `retryAfter`) would otherwise be
 * dropped, and the mock would answer something else than the test says; it is named with the
 * nearest valid key.
 */
export function parseScript(data: unknown): Script {
  const script = Array.isArray(data) ? { steps: data } : data;
  const parsed = Script.safeParse(script);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.flatMap((issue) => {
    const where = issue.path.join('.') || '(root)';
    if (issue.code !== 'unrecognized_keys') return [`  - ${where}: ${issue.message}`];
    const known = keysAt(script, issue.path);
    return issue.keys.map((key) => {
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
  ok: (options: Omit<z.infer<typeof OkStep>, 'kind'> = {}): Step => ({ kind: 'ok', ...options }),
  scenario: (id: string, options: Omit<z.infer<typeof ScenarioStep>, 'kind' | 'id'> = {}): Step => ({
    kind: 'scenario',
    id,
    ...options,
  }),
  status: (status: number, options: Omit<z.infer<typeof StatusStep>, 'kind' | 'status'> = {}): Step => ({
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
  cut: (options: Omit<z.infer<typeof CutStep>, 'kind'> = {}): Step => ({ kind: 'cut', ...options }),
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
