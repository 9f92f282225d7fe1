import { FailureReason, type ProviderErrorMetadata, TAXONOMY } from '@faultline/classify';
import { defineExtractor } from '@faultline/classify/toolkit';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { safeMessageFor } from './disclosure.ts';
import {
  classifyError,
  type ErrorReport,
  FaultlineError,
  formatForLlm,
  formatMarkdown,
  formatPanel,
  guardStream,
  httpResponseFor,
  problemDetails,
  toDict,
  toolResultFor,
  toWireError,
  withClassifiedErrors,
} from './index.ts';
import { bindWithClassifiedErrors } from './toolkit.ts';

// render's generic withClassifiedErrors requires extractors; these tests read with the built-in ones alone.
const withBuiltIns = bindWithClassifiedErrors({ extractors: [] });

// The invariants of "a report never contradicts itself" (DESIGN), checked over every reason ×
// retried or not × idempotent or not × with or without a provider wait, and every formatter.

const SEED = 20261123;

/** What the test's provider says: a message, and the wait it asked for. */
class ProviderFailure extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

// Reads the test's own failure class; the override then picks the reason under test. This tests
// render's loop and formatters, not an extractor (those are tested against the real SDKs).
const providerExtractor = defineExtractor({
  provider: 'testprovider',
  extract(error) {
    if (!(error instanceof ProviderFailure)) return undefined;
    const metadata: ProviderErrorMetadata = {
      provider: 'testprovider',
      message: error.message,
      origin: 'http',
      statusCode: 500,
    };
    if (error.retryAfterSeconds !== undefined) metadata.retryAfterSeconds = error.retryAfterSeconds;
    return metadata;
  },
});

interface Case {
  readonly reason: FailureReason;
  readonly idempotent: boolean;
  readonly maxAttempts: number | undefined;
  readonly retryAfterSeconds: number | undefined;
}

const cases = fc.record({
  reason: fc.constantFrom(...FailureReason.options),
  idempotent: fc.boolean(),
  maxAttempts: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  retryAfterSeconds: fc.option(fc.integer({ min: 0, max: 7200 }), { nil: undefined }),
});

async function fail(testCase: Case): Promise<{ error: FaultlineError; calls: number }> {
  let calls = 0;
  const outcome = withBuiltIns(
    async () => {
      calls += 1;
      throw new ProviderFailure('The provider failed: zebrafish', testCase.retryAfterSeconds);
    },
    {
      extractors: [providerExtractor],
      override: () => testCase.reason,
      idempotent: testCase.idempotent,
      // Waits are recorded, not slept: the fake clock runs them.
      retry:
        testCase.maxAttempts === undefined
          ? undefined
          : { maxAttempts: testCase.maxAttempts, random: () => 0.5, maxRetryAfterSeconds: 7200 },
    },
  ).then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
  await vi.runAllTimersAsync();
  const error = await outcome;
  expect(FaultlineError.isInstance(error), String(error)).toBe(true);
  return { error: error as FaultlineError, calls };
}

function checkReport(report: ErrorReport, testCase: Case, calls: number): void {
  const row = TAXONOMY[testCase.reason];
  expect(report.reason).toBe(testCase.reason);
  // retryable: only transient, or ambiguous when the caller said the call is idempotent.
  expect(report.retryable).toBe(
    row.category === 'transient' || (row.category === 'ambiguous' && testCase.idempotent),
  );
  // The attempts are counted, with one wait per retry, and match what the call really did.
  expect(report.attempts).toBeDefined();
  expect(report.attempts?.made).toBe(calls);
  expect(report.attempts?.waitsMs).toHaveLength(calls - 1);
  // A failure that outlived its retries says so, and its next step is fallback.
  // Without a `retry` option the default applies: 3 attempts.
  const maxAttempts = testCase.maxAttempts ?? 3;
  const exhausted = report.retryable && maxAttempts > 1 && calls === maxAttempts;
  if (report.retriesExhausted === true) {
    expect(exhausted).toBe(true);
    expect(report.nextStep).toBe('fallback');
  }
  if (exhausted) expect(report.retriesExhausted).toBe(true);
  if (report.nextStep === 'retry') {
    expect(report.retryable).toBe(true);
    expect(report.retriesExhausted).not.toBe(true);
  }
  if (report.retryable && report.retriesExhausted !== true) expect(report.nextStep).toBe('retry');
  // Ambiguous: a field says the retry needs idempotence; without it the step says so too.
  expect(report.retryOnlyIfIdempotent).toBe(row.category === 'ambiguous');
  if (report.retryOnlyIfIdempotent && !testCase.idempotent) {
    expect(report.retryable).toBe(false);
    expect(report.nextStep).toBe('retry_if_idempotent');
  }
  expect(report.nextStep === 'stop').toBe(testCase.reason === 'cancelled');
  // A wait always says what it is for.
  expect(report.waitKind !== undefined).toBe(report.retryAfterSeconds !== undefined);
  if (report.waitKind === 'quota_reset') expect(report.category).toBe('capacity');
  if (report.waitKind === 'retry_after') expect(['transient', 'ambiguous']).toContain(report.category);
  if (!report.retryable && report.retryAfterSeconds !== undefined && report.category !== 'ambiguous')
    expect(report.waitKind).not.toBe('retry_after');
}

function checkFormatters(report: ErrorReport): void {
  const notRetryable = !report.retryable && !report.retryOnlyIfIdempotent;

  const panel = formatPanel(report, { color: false });
  expect(panel).toContain(`(${report.category}, `);
  expect(panel.includes('not retryable')).toBe(notRetryable);
  expect(panel.includes('retry only if idempotent')).toBe(!report.retryable && report.retryOnlyIfIdempotent);
  expect(panel.includes('retries exhausted')).toBe(report.retriesExhausted === true);
  expect(panel).toMatch(new RegExp(`next +${report.nextStep}\\b`));
  expect(panel.includes('the quota resets in')).toBe(report.waitKind === 'quota_reset');
  expect(panel.includes('retry after')).toBe(report.waitKind === 'retry_after');
  expect(panel).toMatch(new RegExp(`attempts +${report.attempts?.made} attempt`));
  // Every label is followed by a space (no "delivered3 chunks"); a wrapped value continues under it.
  const labelled = panel
    .split('\n')
    .slice(1)
    .filter((line) => /^│ [a-z]+ /.test(line));
  expect(labelled.length).toBeGreaterThanOrEqual(2);
  for (const line of labelled) expect(line).toMatch(/^│ [a-z]+ +\S/);
  for (const line of panel.split('\n')) expect(line.length).toBeLessThanOrEqual(80);

  const llm = formatForLlm(report);
  expect(llm).toContain(`nextStep: ${report.nextStep}\n`);
  expect(llm).toContain(`retryable: ${report.retryable ? 'yes' : 'no'}`);
  expect(llm.includes('before retrying')).toBe(
    report.nextStep === 'retry' && report.retryAfterSeconds !== undefined,
  );
  expect(llm.includes('quota resets')).toBe(report.waitKind === 'quota_reset');
  expect(llm.includes('(only if the call is idempotent)')).toBe(
    report.retryOnlyIfIdempotent && !report.retryable,
  );
  expect(llm.includes('exhausted')).toBe(report.retriesExhausted === true);

  const markdown = formatMarkdown(report);
  expect(markdown).toContain(`| next step | \`${report.nextStep}\` |`);
  expect(markdown.includes('| retry | not retryable |')).toBe(notRetryable);

  expect(JSON.parse(JSON.stringify(toDict(report)))).toStrictEqual(toDict(report));

  const response = httpResponseFor(report);
  expect(response.body).toMatchObject({
    reason: report.reason,
    category: report.category,
    retryable: report.retryable,
    nextStep: report.nextStep,
    retryOnlyIfIdempotent: report.retryOnlyIfIdempotent,
    detail: safeMessageFor(report.reason),
  });
  expect(response.status).toBe(report.httpStatus);
  // Retry-After tells a client when to retry: only for a wait that is one.
  if (response.headers['retry-after'] !== undefined) expect(report.waitKind).toBe('retry_after');
  expect(JSON.stringify(response)).not.toContain('zebrafish');

  const wire = toWireError(report);
  expect(wire).toStrictEqual({
    error: report.reason,
    category: report.category,
    detail: safeMessageFor(report.reason),
  });

  const tool = JSON.parse(toolResultFor(report).content) as Record<string, unknown>;
  expect(tool).toMatchObject({
    error: report.reason,
    nextStep: report.nextStep,
    retryable: report.retryable,
    retryOnlyIfIdempotent: report.retryOnlyIfIdempotent,
  });
  expect(tool.waitKind).toBe(report.waitKind);
  expect(tool.retriesExhausted).toBe(report.retriesExhausted);
}

describe('a report never contradicts itself', () => {
  it('over every reason × retried or not × idempotent or not × a wait or not, in every formatter', async () => {
    vi.useFakeTimers();
    try {
      await fc.assert(
        fc.asyncProperty(cases, async (testCase) => {
          const { error, calls } = await fail(testCase);
          const report = error.toErrorReport();
          checkReport(report, testCase, calls);
          // The error's own classification agrees with its report.
          expect(error.classification.nextStep).toBe(report.nextStep);
          expect(error.classification.retryable).toBe(report.retryable);
          checkFormatters(report);
        }),
        { seed: SEED, numRuns: 300 },
      );
      // Every reason was seen both retried and not.
      for (const reason of FailureReason.options) {
        for (const maxAttempts of [undefined, 3]) {
          const testCase = { reason, idempotent: false, maxAttempts, retryAfterSeconds: 30 };
          const { error, calls } = await fail(testCase);
          checkReport(error.toErrorReport(), testCase, calls);
          checkFormatters(error.toErrorReport());
        }
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('a spent quota with a wait says when it resets, never "wait" alone', async () => {
    vi.useFakeTimers();
    try {
      const { error } = await fail({
        reason: 'quota',
        idempotent: false,
        maxAttempts: 3,
        retryAfterSeconds: 23,
      });
      const report = error.toErrorReport();
      expect(report).toMatchObject({ retryable: false, waitKind: 'quota_reset', retryAfterSeconds: 23 });
      expect(formatPanel(report, { color: false })).toContain('wait      the quota resets in 23 s');
      expect(formatForLlm(report)).toContain('wait: the quota resets in 23 seconds');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a panel label never touches its value (delivered)', () => {
    const error = classifyError(new ProviderFailure('cut', undefined), {
      extractors: [providerExtractor],
      override: () => 'interrupted',
      delivered: { chunks: 3, characters: 120 },
    });
    expect(formatPanel(error, { color: false })).toContain('delivered 3 chunks, 120 characters');
  });
});

describe('disclosure', () => {
  const CANARIES = [
    'org-CanaryOrg0042xyz',
    'proj_CanaryProj0042',
    'canary.person@example.com',
    'req_CanaryReq0042ab',
  ];
  const message = `You exceeded your current quota for organization ${CANARIES[0]} in project ${CANARIES[1]}; contact ${CANARIES[2]} (request ${CANARIES[3]}). This model's maximum context length is 16000 tokens, you requested 17165 tokens.`;
  const error = classifyError(new ProviderFailure(message, undefined), {
    extractors: [providerExtractor],
    override: () => 'context_overflow',
  });

  it('by default, no canary identifier reaches any outward form', () => {
    const outward = {
      problem: JSON.stringify(httpResponseFor(error)),
      wire: JSON.stringify(toWireError(error)),
      llm: formatForLlm(error),
      tool: toolResultFor(error).content,
    };
    for (const [form, text] of Object.entries(outward)) {
      for (const canary of CANARIES) expect(text, `${form} leaks ${canary}`).not.toContain(canary);
    }
    // problem+json carries no provider text at all.
    expect(outward.problem).not.toContain('exceeded');
    expect(outward.problem).not.toContain('16000');
    // A model gets the useful words, without the account behind them.
    expect(outward.llm).toContain('maximum context length is 16000 tokens, you requested 17165 tokens');
    expect(outward.tool).toContain('maximum context length is 16000 tokens');
  });

  it('the operator sees the provider as it spoke (full), secrets still scrubbed; any output can choose', () => {
    expect(formatPanel(error, { color: false })).toContain(CANARIES[0]);
    expect(problemDetails(error, { disclosure: 'full' }).detail).toContain(CANARIES[0]);
    expect(problemDetails(error, { disclosure: 'scrubbed' }).detail).toContain('16000 tokens');
    expect(problemDetails(error, { disclosure: 'scrubbed' }).detail).not.toContain(CANARIES[0]);
    expect(formatForLlm(error, { disclosure: 'safe' })).not.toContain('16000');
    expect(formatPanel(error, { color: false, disclosure: 'safe' })).not.toContain(CANARIES[0]);
    // An unknown level is the strictest one.
    expect(problemDetails(error, { disclosure: 'everything' as never }).detail).toBe(
      safeMessageFor('context_overflow'),
    );
  });
});

describe('deadlines and aborts, decided by who fired', () => {
  // Render's loop is under test here, not an extractor: the call throws a class of the test's own
  // whatever signal fired (as several SDKs do), and the real SDKs are run through the same cases by
  // the option matrix (test-fixtures/src/option-matrix.ts) in every extract package.
  class CallAborted extends Error {
    constructor() {
      super('Request was aborted.');
    }
  }
  const hangUntilAborted = ({ signal }: { signal: AbortSignal | undefined }) =>
    new Promise<never>((_resolve, reject) => {
      signal?.addEventListener('abort', () => reject(new CallAborted()), { once: true });
    });

  it("render's own deadline firing is a timeout, whatever the call throws for the abort", async () => {
    const error = await withBuiltIns(hangUntilAborted, { deadlineMs: 20 }).catch((e: unknown) => e);
    expect(FaultlineError.isInstance(error), String(error)).toBe(true);
    const report = (error as FaultlineError).toErrorReport();
    expect(report).toMatchObject({ reason: 'timeout', callerAborted: false, attempts: { made: 1 } });
    expect(report.message).toContain('deadline of 20 ms');
    expect((error as FaultlineError).cause).toBeInstanceOf(CallAborted);
  });

  it('a deadline that ends the retries says the retries are exhausted', async () => {
    let calls = 0;
    const error = await withBuiltIns(
      async (context) => {
        calls += 1;
        if (calls === 1) throw new ProviderFailure('busy', undefined);
        return hangUntilAborted(context);
      },
      {
        extractors: [providerExtractor],
        deadlineMs: 60,
        retry: { maxAttempts: 5, baseDelayMs: 1, random: () => 0 },
      },
    ).catch((e: unknown) => e);
    const report = (error as FaultlineError).toErrorReport();
    expect(report).toMatchObject({ reason: 'timeout', retriesExhausted: true, nextStep: 'fallback' });
    expect(report.attempts?.made).toBe(calls);
  });

  it("the caller's abort leaves untouched, whether the signal went to faultline or to the SDK alone", async () => {
    const sdkAbort = new CallAborted();
    // The SDK alone saw the signal: an extractor reads its abort class as the caller's abort.
    const abortExtractor = defineExtractor({
      provider: 'testprovider',
      extract: (error) =>
        error instanceof CallAborted
          ? { provider: 'testprovider', message: 'Request was aborted.', origin: 'abort' }
          : undefined,
    });
    const lean = await withBuiltIns(() => Promise.reject(sdkAbort), {
      extractors: [abortExtractor],
    }).catch((e: unknown) => e);
    expect(lean).toBe(sdkAbort);
    const guarded = await withBuiltIns(() => Promise.reject(sdkAbort), {
      extractors: [abortExtractor],
      retry: { maxAttempts: 3 },
      deadlineMs: 10_000,
    }).catch((e: unknown) => e);
    expect(guarded).toBe(sdkAbort);
    // Given to faultline: the caller's abort, never retried, even with a deadline running.
    const controller = new AbortController();
    let calls = 0;
    const pending = withBuiltIns(
      (context) => {
        calls += 1;
        return hangUntilAborted(context);
      },
      { signal: controller.signal, deadlineMs: 10_000, retry: { maxAttempts: 3 } },
    ).catch((e: unknown) => e);
    controller.abort();
    const thrown = await pending;
    expect(thrown).toBeInstanceOf(CallAborted);
    expect(calls).toBe(1);
    // Reported on its own, the caller's abort is `cancelled`, never unknown or a 500.
    const report = classifyError(sdkAbort, { extractors: [abortExtractor] }).toErrorReport();
    expect(report).toMatchObject({
      reason: 'cancelled',
      callerAborted: true,
      nextStep: 'stop',
      httpStatus: 499,
    });
  });

  it("render's generic withClassifiedErrors refuses, at the type level, a call without extractors", async () => {
    // Without an adapter's extractor an SDK's 429 would be `unknown`: the adapter's own
    // withClassifiedErrors presets it. `pnpm typecheck` fails if this line ever compiles.
    // @ts-expect-error extractors are required
    const withoutExtractors = () => withClassifiedErrors(async () => 1, {});
    // An explicit empty list means the built-in readers alone, and is allowed.
    await expect(withClassifiedErrors(async () => 1, { extractors: [] })).resolves.toBe(1);
    expect(typeof withoutExtractors).toBe('function');
  });

  it('an invalid option is a TypeError at the call, before fn runs', async () => {
    const fn = vi.fn(async () => 1);
    const invalid: Array<Record<string, unknown>> = [
      { deadlineMs: 0 },
      { deadlineMs: -5 },
      { deadlineMs: Number.NaN },
      { deadlineMs: Number.POSITIVE_INFINITY },
      { deadlineMs: '100' },
      { retry: { maxAttempts: -1 } },
      { retry: { maxAttempts: 0 } },
      { retry: { maxAttempts: 1.5 } },
      { retry: { maxAttempts: Number.NaN } },
      { retry: { baseDelayMs: -1 } },
      { retry: { onRetry: 'log' } },
      { retry: 3 },
      { signal: {} },
      { idempotent: 'yes' },
      { inspectResult: 42 },
      { detectBlockedAnswer: 'no' },
      { detectBlockedAnswer: 0 },
    ];
    for (const options of invalid) {
      const error = await withBuiltIns(fn, options as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toMatch(/^withClassifiedErrors: /);
    }
    // The bound form with a preset inspectResult checks the per-call one too, and the options object itself.
    const preset = bindWithClassifiedErrors({ extractors: [], inspectResult: () => undefined });
    for (const options of [{ inspectResult: 42 }, { detectBlockedAnswer: 'no' }, null, 42]) {
      const error = await preset(fn, options as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toMatch(/^withClassifiedErrors: /);
    }
    expect(fn).not.toHaveBeenCalled();
    async function* empty() {}
    for (const options of [
      { idleTimeoutMs: -1 },
      { idleTimeoutMs: Number.NaN },
      { idleTimeoutMs: '5' },
      { signal: 1 },
    ]) {
      expect(() => guardStream(empty(), options as never), JSON.stringify(options)).toThrow(TypeError);
    }
    // 0 and Infinity are documented: the idle timer off.
    expect(() => guardStream(empty(), { idleTimeoutMs: 0 })).not.toThrow();
    expect(() => guardStream(empty(), { idleTimeoutMs: Number.POSITIVE_INFINITY })).not.toThrow();
  });
});
