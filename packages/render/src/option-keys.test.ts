import { describe, expect, it, vi } from 'vitest';
import {
  classifyError,
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
import {
  DISCLOSURE_OPTION_KEYS,
  PANEL_OPTION_KEYS,
  PROBLEM_DETAILS_OPTION_KEYS,
  TOOL_RESULT_OPTION_KEYS,
} from './option-keys.ts';
import {
  bindWithClassifiedErrors,
  CLASSIFY_ERROR_OPTION_KEYS,
  checkOptionKeys,
  GUARD_STREAM_OPTION_KEYS,
  nearestOption,
  RETRY_OPTION_KEYS,
  WITH_CLASSIFIED_ERRORS_OPTION_KEYS,
} from './toolkit.ts';

const bound = bindWithClassifiedErrors({ extractors: [] });

/** Every key of a table given as undefined: accepted by the value checks, so only the key check can refuse it. */
function everyKey(table: Readonly<Record<string, true>>): Record<string, undefined> {
  return Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
}

async function* twoChunks(): AsyncGenerator<string> {
  yield 'a';
  yield 'b';
}

async function collect(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('nearestOption', () => {
  it('suggests the valid name a misspelling or another library’s word most likely means', () => {
    const keys = Object.keys(WITH_CLASSIFIED_ERRORS_OPTION_KEYS);
    expect(nearestOption('maxRetries', keys)).toBe('retry');
    expect(nearestOption('abortSignal', keys)).toBe('signal');
    expect(nearestOption('deadline', keys)).toBe('deadlineMs');
    expect(nearestOption('extractor', keys)).toBe('extractors');
    expect(nearestOption('maxAtempts', Object.keys(RETRY_OPTION_KEYS))).toBe('maxAttempts');
  });

  it('suggests nothing for a word near no option', () => {
    expect(nearestOption('colour', Object.keys(WITH_CLASSIFIED_ERRORS_OPTION_KEYS))).toBeUndefined();
    expect(nearestOption('timeout', Object.keys(WITH_CLASSIFIED_ERRORS_OPTION_KEYS))).toBeUndefined();
  });
});

describe('checkOptionKeys', () => {
  it('lists every valid key when none is near', () => {
    expect(() => checkOptionKeys('toDict', { zzzzzz: 1 }, DISCLOSURE_OPTION_KEYS)).toThrow(
      'unknown option "zzzzzz" for toDict; expected one of "disclosure"',
    );
  });

  it('sees an inherited enumerable key, as a read of options.name would', () => {
    const options = Object.create({ maxRetries: 3 }) as object;
    expect(() =>
      checkOptionKeys('withClassifiedErrors', options, WITH_CLASSIFIED_ERRORS_OPTION_KEYS),
    ).toThrow(/unknown option "maxRetries"/);
  });

  it('leaves an object whose keys cannot be listed to the entry point', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('hostile');
        },
      },
    );
    expect(() => checkOptionKeys('toDict', hostile, DISCLOSURE_OPTION_KEYS)).not.toThrow();
  });
});

describe('withClassifiedErrors: unknown option keys', () => {
  it('throws a TypeError naming the key and the nearest valid one, before fn runs', async () => {
    const fn = vi.fn(async () => 'answer');
    for (const call of [
      () => withClassifiedErrors(fn, { extractors: [], maxRetries: 3 } as never),
      () => bound(fn, { maxRetries: 3 } as never),
    ]) {
      const error = await call().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe(
        'unknown option "maxRetries" for withClassifiedErrors; did you mean "retry"?',
      );
      expect((error as TypeError & { code?: string }).code).toBe('ERR_INVALID_ARG_VALUE');
    }
    expect(fn).not.toHaveBeenCalled();
  });

  it('checks the keys of the retry object too', async () => {
    const fn = vi.fn(async () => 'answer');
    const error = await bound(fn, { retry: { maxAtempts: 3 } as never }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(
      'unknown option "maxAtempts" in "retry" for withClassifiedErrors; did you mean "maxAttempts"?',
    );
    expect(fn).not.toHaveBeenCalled();
  });

  it('refuses a preset’s unknown key or bad value at every call, before fn runs', async () => {
    const fn = vi.fn(async () => 'answer');
    const misspelt = bindWithClassifiedErrors({ extractors: [], retry: { maxAtempts: 3 } } as never);
    const badValue = bindWithClassifiedErrors({ extractors: [], idempotent: 'yes' } as never);
    for (let call = 0; call < 2; call += 1) {
      await expect(misspelt(fn)).rejects.toThrow(
        'unknown option "maxAtempts" in "retry" for withClassifiedErrors; did you mean "maxAttempts"?',
      );
      await expect(badValue(fn, {})).rejects.toThrow(
        'withClassifiedErrors: idempotent must be a boolean (got "yes")',
      );
    }
    expect(fn).not.toHaveBeenCalled();
  });

  it('takes the preset retry unless a call gives its own', async () => {
    const preset = bindWithClassifiedErrors({ extractors: [], retry: false });
    const failing = vi.fn(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    });
    await expect(preset(failing)).rejects.toThrow();
    expect(failing).toHaveBeenCalledTimes(1);
    failing.mockClear();
    await expect(preset(failing, { retry: { maxAttempts: 2, baseDelayMs: 0 } })).rejects.toThrow();
    expect(failing).toHaveBeenCalledTimes(2);
  });

  it('accepts every documented key, of the options and of retry', async () => {
    await expect(
      withClassifiedErrors(async () => 'answer', {
        ...everyKey(WITH_CLASSIFIED_ERRORS_OPTION_KEYS),
        extractors: [],
        retry: everyKey(RETRY_OPTION_KEYS),
      }),
    ).resolves.toBe('answer');
    await expect(bound(async () => 'answer', everyKey(WITH_CLASSIFIED_ERRORS_OPTION_KEYS))).resolves.toBe(
      'answer',
    );
  });
});

describe('guardStream: unknown option keys', () => {
  it('throws a TypeError naming the key at the call', () => {
    const call = () => guardStream(twoChunks(), { idleTimeout: 5 } as never);
    expect(call).toThrow(TypeError);
    expect(call).toThrow('unknown option "idleTimeout" for guardStream; did you mean "idleTimeoutMs"?');
  });

  it('accepts every documented key', async () => {
    await expect(collect(guardStream(twoChunks(), everyKey(GUARD_STREAM_OPTION_KEYS)))).resolves.toEqual([
      'a',
      'b',
    ]);
  });
});

describe('formatters, HTTP and classifyError: unknown option keys', () => {
  const failure = new Error('boom');
  const entries: ReadonlyArray<
    readonly [string, (options: object) => unknown, Readonly<Record<string, true>>]
  > = [
    ['formatPanel', (options) => formatPanel(failure, options), PANEL_OPTION_KEYS],
    ['toDict', (options) => toDict(failure, options), DISCLOSURE_OPTION_KEYS],
    ['formatMarkdown', (options) => formatMarkdown(failure, options), DISCLOSURE_OPTION_KEYS],
    ['formatForLlm', (options) => formatForLlm(failure, options), DISCLOSURE_OPTION_KEYS],
    ['toWireError', (options) => toWireError(failure, undefined, options), DISCLOSURE_OPTION_KEYS],
    ['toolResultFor', (options) => toolResultFor(failure, options), TOOL_RESULT_OPTION_KEYS],
    ['problemDetails', (options) => problemDetails(failure, options), PROBLEM_DETAILS_OPTION_KEYS],
    ['httpResponseFor', (options) => httpResponseFor(failure, options), PROBLEM_DETAILS_OPTION_KEYS],
    ['classifyError', (options) => classifyError(failure, options), CLASSIFY_ERROR_OPTION_KEYS],
  ];
  for (const [name, call, keys] of entries) {
    it(`${name} refuses a misspelt key and accepts every documented one`, () => {
      expect(() => call({ disclosre: 'safe' })).toThrow(
        new RegExp(`^unknown option "disclosre" for ${name}; `),
      );
      expect(() => call({ disclosre: 'safe' })).toThrow(TypeError);
      expect(() => call(everyKey(keys))).not.toThrow();
    });
  }
});
