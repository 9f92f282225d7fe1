import { FaultlineError } from '@faultline/render';
import { describe, expect, it, vi } from 'vitest';
import {
  classifyLangChainError,
  createLangChainExtractor,
  type FaultlineCallbackHandlerOptions,
  faultlineCallbackHandler,
  faultlineOnFailedAttempt,
  faultlineRetryOn,
  type GuardLangChainStreamOptions,
  guardLangChainStream,
  invokeWithFallbacks,
  type LangChainClassifyOptions,
  type OnFailedAttemptOptions,
  type ShouldFallBackOptions,
  shouldFallBack,
} from './index.ts';
import {
  CALLBACK_HANDLER_OPTION_KEYS,
  GUARD_LANGCHAIN_STREAM_OPTION_KEYS,
  INVOKE_WITH_FALLBACKS_OPTION_KEYS,
  LANGCHAIN_CLASSIFY_OPTION_KEYS,
  ON_FAILED_ATTEMPT_OPTION_KEYS,
  SHOULD_FALL_BACK_OPTION_KEYS,
} from './option-keys.ts';

// The types refuse what the calls refuse.
// @ts-expect-error: maxRetries is not an option
const _misnamed: OnFailedAttemptOptions = { maxRetries: 3 };
// @ts-expect-error: fallbackOn names failure reasons
const _misspeltReason: ShouldFallBackOptions = { fallbackOn: { rate_limt: false } };
// @ts-expect-error: readChunk is the guard's own
const _readChunk: GuardLangChainStreamOptions = { readChunk: () => undefined };

function everyKey(table: Readonly<Record<string, true>>): Record<string, undefined> {
  return Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
}

// Any thrown value is classified; a plain Error is `unknown`: never retried, never a fallback.
const failure = new Error('boom');

async function* chunks(): AsyncGenerator<unknown> {
  yield { content: 'hello' };
}

describe('unknown option keys are a TypeError at the call, naming the key and the nearest valid one', () => {
  it('classifyLangChainError and createLangChainExtractor', () => {
    const call = () => classifyLangChainError(failure, { modle: 'gpt-4o' } as LangChainClassifyOptions);
    expect(call).toThrow(TypeError);
    expect(call).toThrow('unknown option "modle" for classifyLangChainError; did you mean "model"?');
    expect(() => createLangChainExtractor({ providr: 'openai' } as { provider?: string })).toThrow(
      'unknown option "providr" for createLangChainExtractor; did you mean "provider"?',
    );
  });

  it('faultlineRetryOn and faultlineOnFailedAttempt', () => {
    expect(() => faultlineRetryOn({ idempotant: true } as LangChainClassifyOptions)).toThrow(
      'unknown option "idempotant" for faultlineRetryOn; did you mean "idempotent"?',
    );
    expect(() => faultlineOnFailedAttempt({ stopAfterAttempts: 3 } as OnFailedAttemptOptions)).toThrow(
      'unknown option "stopAfterAttempts" for faultlineOnFailedAttempt; did you mean "stopAfterAttempt"?',
    );
  });

  it('shouldFallBack, and the reasons of its fallbackOn', () => {
    expect(() => shouldFallBack(failure, { fallbackAfterOutputs: true } as ShouldFallBackOptions)).toThrow(
      'unknown option "fallbackAfterOutputs" for shouldFallBack; did you mean "fallbackAfterOutput"?',
    );
    expect(() =>
      shouldFallBack(failure, { fallbackOn: { rate_limt: false } } as unknown as ShouldFallBackOptions),
    ).toThrow('unknown option "rate_limt" in "fallbackOn" for shouldFallBack; did you mean "rate_limit"?');
  });

  it('invokeWithFallbacks, before any runnable is called', async () => {
    const invoke = vi.fn(async () => 'answer');
    const options = { fallbackOn: { content_polcy: true } } as unknown as ShouldFallBackOptions;
    await expect(invokeWithFallbacks([{ invoke }], 'input', options)).rejects.toThrow(
      'unknown option "content_polcy" in "fallbackOn" for invokeWithFallbacks; did you mean "content_policy"?',
    );
    expect(invoke).not.toHaveBeenCalled();
  });

  it('faultlineCallbackHandler and guardLangChainStream', () => {
    expect(() =>
      faultlineCallbackHandler({ onFailures: () => {} } as FaultlineCallbackHandlerOptions),
    ).toThrow('unknown option "onFailures" for faultlineCallbackHandler; did you mean "onFailure"?');
    expect(() => guardLangChainStream(chunks(), { idleTimeout: 5 } as GuardLangChainStreamOptions)).toThrow(
      'unknown option "idleTimeout" for guardLangChainStream; did you mean "idleTimeoutMs"?',
    );
    expect(() =>
      guardLangChainStream(chunks(), { readChunk: () => undefined } as GuardLangChainStreamOptions),
    ).toThrow(/^unknown option "readChunk" for guardLangChainStream; /);
  });

  it("faultlineCallbackHandler's keep: a whole number from 0 to 10 000, else a TypeError (never a silent bound)", () => {
    for (const keep of [-1, 1.5, Number.NaN, 10_001, '5'])
      expect(() => faultlineCallbackHandler({ keep } as unknown as FaultlineCallbackHandlerOptions)).toThrow(
        'faultlineCallbackHandler: keep must be a whole number from 0 to 10000',
      );
    const handler = faultlineCallbackHandler({ keep: 2 });
    for (const message of ['one', 'two', 'three']) handler.handleLLMError(new Error(message));
    expect(handler.failures).toHaveLength(2);
  });
});

describe('every documented key is accepted', () => {
  it('by each function', async () => {
    expect(
      classifyLangChainError(failure, everyKey(LANGCHAIN_CLASSIFY_OPTION_KEYS)).classification.reason,
    ).toBe('unknown');
    expect(faultlineRetryOn(everyKey(LANGCHAIN_CLASSIFY_OPTION_KEYS))(failure)).toBe(false);
    expect(() => faultlineOnFailedAttempt(everyKey(ON_FAILED_ATTEMPT_OPTION_KEYS))(failure)).toThrow(
      FaultlineError,
    );
    expect(shouldFallBack(failure, everyKey(SHOULD_FALL_BACK_OPTION_KEYS))).toBe(false);
    expect(shouldFallBack(failure, { fallbackOn: { content_policy: true } })).toBe(false);
    await expect(
      invokeWithFallbacks(
        [{ invoke: async () => 'answer' }],
        'input',
        everyKey(INVOKE_WITH_FALLBACKS_OPTION_KEYS),
      ),
    ).resolves.toBe('answer');
    const handler = faultlineCallbackHandler(everyKey(CALLBACK_HANDLER_OPTION_KEYS));
    handler.handleLLMError(failure);
    expect(handler.failures.map((report) => report.reason)).toEqual(['unknown']);
    const read: unknown[] = [];
    for await (const chunk of guardLangChainStream(chunks(), everyKey(GUARD_LANGCHAIN_STREAM_OPTION_KEYS)))
      read.push(chunk);
    expect(read).toEqual([{ content: 'hello' }]);
  });
});
