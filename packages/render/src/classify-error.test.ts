import { inspect } from 'node:util';
import { onExtractorCrash, type ProviderErrorMetadata } from '@faultline/classify';
import { defineExtractor, type ExtractContext } from '@faultline/classify/toolkit';
import { describe, expect, it } from 'vitest';
import { classifyError, FaultlineError, withClassifiedErrors } from './index.ts';

// classifyError builds the error it returns: extraction, classification and the message run once,
// when the failure is caught, with the signal and the clock as they are then.

const rateLimited: ProviderErrorMetadata = {
  provider: 'openai',
  origin: 'http',
  statusCode: 429,
  message: 'Rate limit reached for requests',
  requestId: 'req_1',
};

/** An extractor returning `metadata` (or what `read(context)` gives), counting its calls. */
function counting(
  metadata: ProviderErrorMetadata,
  read?: (context: ExtractContext) => ProviderErrorMetadata,
) {
  const calls = { count: 0 };
  const extractor = {
    provider: metadata.provider,
    extract: (_error: unknown, context: ExtractContext) => {
      calls.count += 1;
      return read === undefined ? metadata : read(context);
    },
  };
  return { calls, extractor };
}

describe('classifyError builds the error with its classification', () => {
  it('runs the extractor once, when the failure is caught; the fields are own properties', () => {
    const { calls, extractor } = counting(rateLimited);
    const error = classifyError(new Error('boom'), { extractors: [extractor], model: 'gpt-x' });
    expect(calls.count).toBe(1);
    for (const key of ['message', 'classification', 'metadata', 'provider', 'model'])
      expect(Object.hasOwn(error, key), key).toBe(true);
    // What Node prints after the stack: the short fields; the rest is in the report.
    expect(Object.keys(error)).toEqual(['errorType', 'provider', 'model']);
    expect(Object.getOwnPropertyDescriptor(error, 'message')?.value).toBe('Rate limit reached for requests');
    expect(error.classification.reason).toBe('rate_limit');
    error.toErrorReport();
    expect(calls.count).toBe(1);
  });

  it('reads the signal as it was when caught: an abort after the failure is not the caller’s', () => {
    const controller = new AbortController();
    const { extractor } = counting(rateLimited, (context) =>
      context.signal?.aborted === true ? { ...rateLimited, origin: 'abort' } : rateLimited,
    );
    const error = classifyError(new Error('boom'), { extractors: [extractor], signal: controller.signal });
    controller.abort();
    expect(error.classification.callerAborted).toBe(false);
    expect(error.classification.reason).toBe('rate_limit');
    const aborted = new AbortController();
    aborted.abort();
    const abortError = classifyError(aborted.signal.reason, {
      extractors: [extractor],
      signal: aborted.signal,
    });
    expect(abortError.classification.callerAborted).toBe(true);
  });

  it('reads the clock when caught', () => {
    let clock = 1_000_000;
    const { extractor } = counting(rateLimited, (context) => ({
      ...rateLimited,
      retryAfterSeconds: (1_030_000 - (context.now?.() ?? Number.NaN)) / 1000,
    }));
    const error = classifyError(new Error('boom'), { extractors: [extractor], now: () => clock });
    clock += 20_000;
    expect(error.classification.retryAfterSeconds).toBe(30);
  });

  it('stays total when the extractor crashes, and reports the crash once, at the catch', () => {
    const crashes: unknown[] = [];
    const stop = onExtractorCrash((crash) => crashes.push(crash));
    const bug = new TypeError('extractor bug');
    try {
      const extractor = defineExtractor({
        provider: 'broken',
        extract() {
          throw bug;
        },
      });
      const error = classifyError(new Error('boom'), { extractors: [extractor] });
      expect(crashes).toEqual([{ provider: 'broken', thrown: bug }]);
      expect(error.classification.reason).toBe('local_bug');
      error.toErrorReport();
      expect(crashes).toHaveLength(1);
    } finally {
      stop();
      // The repository's test setup records every crash and fails the test unless it is taken.
      const recorded = (globalThis as Record<symbol, unknown[] | undefined>)[
        Symbol.for('faultline.extractorCrashes')
      ];
      expect(recorded?.splice(0)).toEqual([{ provider: 'broken', thrown: bug }]);
    }
  });
});

describe('withClassifiedErrors', () => {
  it('throws the error built with its classification and the attempt made', async () => {
    const { calls, extractor } = counting(rateLimited);
    const thrown = new Error('boom');
    const error = await withClassifiedErrors(
      () => {
        throw thrown;
      },
      { extractors: [extractor], retry: false },
    ).catch((caught: unknown) => caught as FaultlineError);
    expect(calls.count).toBe(1);
    expect(error.cause).toBe(thrown);
    expect(error.classification.reason).toBe('rate_limit');
    expect(error.attempts).toEqual({ made: 1, waitsMs: [], exhausted: false });
  });

  it('re-throws the caller’s abort untouched, read by an extractor', async () => {
    const { extractor } = counting({ provider: 'p', origin: 'abort', message: 'aborted' });
    const thrown = new Error('aborted by the SDK');
    await expect(
      withClassifiedErrors(
        () => {
          throw thrown;
        },
        { extractors: [extractor] },
      ),
    ).rejects.toBe(thrown);
  });

  it('with an override that makes the failure the caller’s, still re-throws it untouched', async () => {
    const { extractor } = counting(rateLimited);
    const thrown = new Error('boom');
    await expect(
      withClassifiedErrors(
        () => {
          throw thrown;
        },
        { extractors: [extractor], override: () => ({ callerAborted: true }) },
      ),
    ).rejects.toBe(thrown);
  });
});

describe('the stack of a wrapping error', () => {
  async function callerOfTheModel(extractor: ReturnType<typeof counting>['extractor']) {
    return await withClassifiedErrors(
      async () => {
        throw new Error('boom');
      },
      { extractors: [extractor], model: 'gpt-x', retry: false },
    );
  }

  it('is a summary (reason, next step, provider, status), then frames', async () => {
    const { extractor } = counting({ ...rateLimited, retryAfterSeconds: 2 });
    let error: unknown;
    try {
      await callerOfTheModel(extractor);
    } catch (caught) {
      error = caught;
    }
    const lines = (error as FaultlineError).stack?.split('\n') ?? [];
    expect(lines.slice(0, 5)).toEqual([
      'FaultlineError: Rate limit reached for requests',
      '  reason:    rate_limit (transient, retryable)',
      expect.stringMatching(/^ {2}next step: retry after 2 s: \S/),
      '  from:      provider openai, model gpt-x, HTTP 429',
      '  report:    error.toErrorReport()',
    ]);
    // The caller's frames follow, read from the cause's stack after render's own; this test sits in
    // render's directory, so its own frames count as render's (extract-openai's uncaught-summary
    // test checks a caller's frame from a file of its own).
    expect(lines.slice(5).every((line) => line.startsWith('    at '))).toBe(true);
    expect(inspect(error)).toContain('[cause]: Error: boom');
  });

  it("after retries ran out, says so in the panel's words and drops the wait of a retry", async () => {
    const { extractor } = counting({ ...rateLimited, retryAfterSeconds: 0 });
    const error = await withClassifiedErrors(
      async () => {
        throw new Error('boom');
      },
      { extractors: [extractor], model: 'gpt-x', retry: { maxAttempts: 2, baseDelayMs: 1 } },
    ).catch((caught: unknown) => caught as FaultlineError);
    const lines = error.stack?.split('\n') ?? [];
    expect(lines[1]).toBe('  reason:    rate_limit (transient, retryable, retries exhausted)');
    expect(lines[2]).toMatch(/^ {2}next step: fallback: The retries ran out/);
    expect(lines[3]).toBe('  from:      provider openai, model gpt-x, HTTP 429, 2 attempts');
  });

  it('can be assigned, as any error’s; an error without a cause keeps its own frames', () => {
    const error = classifyError(new Error('boom'), { extractors: [counting(rateLimited).extractor] });
    error.stack = 'replaced';
    expect(error.stack).toBe('replaced');
    const own = new FaultlineError('no cause');
    expect(own.stack).toMatch(/^FaultlineError: no cause\n {4}at /);
  });
});
