import { inspect } from 'node:util';
import { FailureReason, onExtractorCrash, type ProviderErrorMetadata, TAXONOMY } from '@faultline/classify';
import { defineExtractor, type ExtractContext } from '@faultline/classify/toolkit';
import { describe, expect, it } from 'vitest';
import { classifyError, FaultlineError, withClassifiedErrors } from './index.ts';

// classifyError builds the error at throw time around its cause and defers extraction,
// classification and the message to the first read. These tests pin what that must not change:
// when the work runs, that it runs once, what it sees, and the error's shape once read.

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

/** Every way a caller can first touch the error, each of which must run the deferred work. */
const FIRST_READS: ReadonlyArray<readonly [string, (error: FaultlineError) => unknown]> = [
  ['classification', (error) => error.classification],
  ['metadata', (error) => error.metadata],
  ['provider', (error) => error.provider],
  ['message', (error) => error.message],
  ['stack', (error) => error.stack],
  ['String()', (error) => String(error)],
  ['toErrorReport()', (error) => error.toErrorReport()],
  ['JSON.stringify', (error) => JSON.stringify(error)],
  ['util.inspect', (error) => inspect(error)],
  ['delivered', (error) => error.delivered],
];

describe('a FaultlineError from classifyError is classified on first read', () => {
  it('runs no extractor at throw time, and runs it once whatever is read after', () => {
    const { calls, extractor } = counting(rateLimited);
    const error = classifyError(new Error('boom'), { extractors: [extractor] });
    expect(calls.count).toBe(0);
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect(error.errorType).toBe('FaultlineError');
    expect(error.name).toBe('FaultlineError');
    expect(calls.count).toBe(0);
    expect(error.classification.reason).toBe('rate_limit');
    expect(error.message).toBe('Rate limit reached for requests');
    error.toErrorReport();
    error.toErrorReport();
    expect(calls.count).toBe(1);
  });

  it.each(FIRST_READS)(
    '%s runs it, and the error then has the shape of one built eagerly',
    (_label, read) => {
      const { calls, extractor } = counting(rateLimited);
      const error = classifyError(new Error('boom'), { extractors: [extractor], model: 'gpt-x' });
      read(error);
      expect(calls.count).toBe(1);
      // Built eagerly from the same facts: same own keys, same values, same report.
      const eager = new FaultlineError(error.message, {
        cause: error.cause,
        metadata: rateLimited,
        classification: error.classification,
        provider: 'openai',
        model: 'gpt-x',
      });
      expect(Object.keys(error)).toEqual(['errorType', 'classification', 'metadata', 'provider', 'model']);
      expect(Object.keys(error)).toEqual(Object.keys(eager));
      expect({ ...error }).toEqual({ ...eager });
      expect(error.toErrorReport()).toEqual(eager.toErrorReport());
      expect(error.stack?.split('\n')[0]).toBe('FaultlineError: Rate limit reached for requests');
      expect(inspect(error)).toContain("reason: 'rate_limit'");
    },
  );

  it('gives what the eager path gives, for every reason', () => {
    for (const reason of FailureReason.options) {
      const metadata: ProviderErrorMetadata = {
        provider: 'p',
        origin: 'http',
        statusCode: TAXONOMY[reason].httpStatus,
        message: `${TAXONOMY[reason].advice} (${reason})`,
      };
      const { extractor } = counting(metadata);
      const thrown = new Error(reason);
      const lazy = classifyError(thrown, { extractors: [extractor], idempotent: true });
      // With a family the class depends on the classification: that path classifies at throw time.
      const eager = classifyError(thrown, {
        extractors: [extractor],
        idempotent: true,
        family: 'completion',
      });
      expect(lazy.classification).toEqual(eager.classification);
      expect(lazy.metadata).toEqual(eager.metadata);
      expect(lazy.message).toBe(eager.message);
      expect({ ...lazy.toErrorReport(), errorType: 'x' }).toEqual({
        ...eager.toErrorReport(),
        errorType: 'x',
      });
    }
  });

  it('reads the signal as it was at throw time: an abort after the failure is not the caller’s', () => {
    const controller = new AbortController();
    const seen: boolean[] = [];
    const { extractor } = counting(rateLimited, (context) => {
      seen.push(context.signal?.aborted === true);
      return context.signal?.aborted === true ? { ...rateLimited, origin: 'abort' } : rateLimited;
    });
    const thrown = new Error('boom');
    const error = classifyError(thrown, { extractors: [extractor], signal: controller.signal });
    controller.abort();
    expect(error.classification.callerAborted).toBe(false);
    expect(error.classification.reason).toBe('rate_limit');
    expect(seen).toEqual([false]);
    // Aborted before the failure was caught: the caller's own abort, however late it is read.
    const aborted = new AbortController();
    aborted.abort();
    const abortError = classifyError(aborted.signal.reason, {
      extractors: [extractor],
      signal: aborted.signal,
    });
    expect(abortError.classification.callerAborted).toBe(true);
  });

  it('reads the clock as it was at throw time', () => {
    let clock = 1_000_000;
    const { extractor } = counting(rateLimited, (context) => ({
      ...rateLimited,
      retryAfterSeconds: (1_030_000 - (context.now?.() ?? Number.NaN)) / 1000,
    }));
    const error = classifyError(new Error('boom'), { extractors: [extractor], now: () => clock });
    clock += 20_000;
    expect(error.classification.retryAfterSeconds).toBe(30);
  });

  it('stays total when the extractor crashes on first read: same fallback, and the crash is reported then', () => {
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
      const thrown = new Error('boom');
      const lazy = classifyError(thrown, { extractors: [extractor] });
      expect(crashes).toHaveLength(0);
      const eager = classifyError(thrown, { extractors: [extractor], family: 'completion' });
      expect(crashes).toHaveLength(1);
      expect(lazy.classification).toEqual(eager.classification);
      expect(lazy.classification.reason).toBe('local_bug');
      expect(crashes).toEqual([
        { provider: 'broken', thrown: bug },
        { provider: 'broken', thrown: bug },
      ]);
      expect(lazy.toErrorReport()).toEqual({ ...eager.toErrorReport(), errorType: 'FaultlineError' });
    } finally {
      stop();
      // The repository's test setup records every crash and fails the test unless it is taken.
      const recorded = (globalThis as Record<symbol, unknown[] | undefined>)[
        Symbol.for('faultline.extractorCrashes')
      ];
      expect(recorded?.splice(0)).toEqual([
        { provider: 'broken', thrown: bug },
        { provider: 'broken', thrown: bug },
      ]);
    }
  });

  it('keeps a value set before the first read', () => {
    const { extractor } = counting(rateLimited);
    const error = classifyError(new Error('boom'), { extractors: [extractor] }) as FaultlineError & {
      model?: string;
    };
    (error as { model?: string }).model = 'set-by-caller';
    expect(error.model).toBe('set-by-caller');
    expect(error.classification.reason).toBe('rate_limit');
    expect(Object.keys(error)).toContain('model');
  });
});

describe('withClassifiedErrors and the deferred classification', () => {
  it('without retries, throws the error with its classification still to run', async () => {
    const { calls, extractor } = counting(rateLimited);
    const thrown = new Error('boom');
    const error = await withClassifiedErrors(
      () => {
        throw thrown;
      },
      { extractors: [extractor], retry: false },
    ).catch((caught: unknown) => caught as FaultlineError);
    // The caller-abort check reads the extraction only (an override would need the classification).
    expect(calls.count).toBe(1);
    expect(error.cause).toBe(thrown);
    expect(error.classification.reason).toBe('rate_limit');
    expect(error.attempts).toEqual({ made: 1, waitsMs: [], exhausted: false });
    expect(calls.count).toBe(1);
  });

  it('re-throws the caller’s abort untouched, read from the extraction', async () => {
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
