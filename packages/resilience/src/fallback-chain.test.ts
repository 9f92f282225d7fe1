import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Candidate,
  type CandidateOutcome,
  FallbackChainError,
  type FallbackOptions,
  type HealthEvent,
  HealthRegistry,
  MemoryHealthStore,
  minimumTokenCount,
  modelLimits,
  runWithFallback,
  streamWithFallback,
} from './index.ts';
import {
  answerScenario,
  chatCandidate,
  deltaText,
  fakeTime,
  type ResponseScenario,
  streamCandidate,
  streamScenario,
  textOf,
} from './test-support.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

/** A registry on a fake clock, recording its events. */
function registryOn(
  time: ReturnType<typeof fakeTime>,
  options: ConstructorParameters<typeof HealthRegistry>[0] = {},
) {
  const events: HealthEvent[] = [];
  const registry = new HealthRegistry({
    store: new MemoryHealthStore({ now: time.now }),
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { registry, events };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the chain to fail');
    },
    (error: unknown) => error,
  );
}

describe('fallback chain with the real openai SDK', () => {
  it('moves from a spent quota to the next candidate at once, with no retry (counted at the server)', async () => {
    const quota = loadScenario('openai/insufficient-quota');
    const answer = answerScenario('second');
    const time = fakeTime();
    const { registry } = registryOn(time);
    const result = await runWithFallback(
      [
        chatCandidate(server, () => quota, { model: 'gpt-4o' }),
        chatCandidate(server, () => answer, { provider: 'groq', model: 'llama-3.3-70b' }),
      ],
      { registry, retry: { maxAttempts: 3 }, sleep: time.sleep },
    );
    expect(textOf(result)).toBe('second');
    expect(server.requests(quota)).toHaveLength(1);
    expect(server.requests(answer)).toHaveLength(1);
    expect(time.slept).toEqual([]);
    // A spent allowance cools its key (capacityCooldownMs, 60 s): the next call does not pay a request to relearn it.
    await runWithFallback(
      [
        chatCandidate(server, () => quota, { model: 'gpt-4o' }),
        chatCandidate(server, () => answer, { provider: 'groq', model: 'llama-3.3-70b' }),
      ],
      { registry, sleep: time.sleep },
    );
    expect(server.requests(quota)).toHaveLength(1);
    expect(server.requests(answer)).toHaveLength(2);
  });

  it('retries a transient failure on its candidate before moving on, and reports every candidate in order', async () => {
    const down = loadScenario('openai/server-error-json');
    const quota = loadScenario('openai/insufficient-quota');
    const time = fakeTime();
    const { registry } = registryOn(time, { breaker: false });
    const error = await failure(
      runWithFallback(
        [
          chatCandidate(server, () => down, { model: 'gpt-4o', credentialId: 'team-a' }),
          chatCandidate(server, () => quota, { model: 'gpt-4o-mini', credentialId: 'team-a' }),
        ],
        { registry, retry: { maxAttempts: 3 }, sleep: time.sleep },
      ),
    );
    expect(FallbackChainError.isInstance(error)).toBe(true);
    const chain = error as FallbackChainError;
    // The classification is the last candidate's; the SDK error is at the end of the cause chain.
    expect(chain.toErrorReport()).toMatchObject({ reason: 'quota', errorType: 'FallbackChainError' });
    expect(FaultlineError.isInstance(chain.cause)).toBe(true);
    expect(chain.candidates.map((outcome) => [outcome.model, outcome.status, outcome.attempts])).toEqual([
      ['gpt-4o', 'failed', 3],
      ['gpt-4o-mini', 'failed', 1],
    ]);
    expect(chain.candidates[0]?.report).toMatchObject({ reason: 'server_error', provider: 'openai' });
    expect(chain.candidates[0]?.waitsMs).toHaveLength(2);
    expect(server.requests(down)).toHaveLength(3);
    // What leaves the process is safe: no prompt, no key.
    const serialised = JSON.stringify(chain.toFallbackReport());
    expect(serialised).not.toContain('canary-prompt-7f3a');
    expect(serialised).not.toContain('sk-test-faultline');
  });

  it('never falls back on a bad request, and leaves the other candidates uncalled', async () => {
    const bad = loadScenario('openai/together-invalid-request-422');
    const answer = answerScenario('never');
    const error = await failure(
      runWithFallback(
        [
          chatCandidate(server, () => bad, { model: 'gpt-4o' }),
          chatCandidate(server, () => answer, { model: 'gpt-4o-mini' }),
        ],
        { registry: registryOn(fakeTime()).registry },
      ),
    );
    const chain = error as FallbackChainError;
    expect(chain.classification.reason).toBe('invalid_request');
    expect(chain.candidates[1]).toMatchObject({ status: 'skipped', skipped: 'chain_ended' });
    expect(server.requests(answer)).toHaveLength(0);
  });

  it('a rejected key moves on by default only to another credential or provider, with a credential-rejected event', async () => {
    const auth = loadScenario('openai/invalid-api-key');
    const sameKey = answerScenario('same-key');
    const otherKey = answerScenario('other-key');
    const candidates = [
      chatCandidate(server, () => auth, { model: 'gpt-4o', credentialId: 'shared' }),
      chatCandidate(server, () => sameKey, { model: 'gpt-4o-mini', credentialId: 'shared' }),
      chatCandidate(server, () => otherKey, { model: 'gpt-4o-mini', credentialId: 'backup' }),
    ];
    const { registry, events } = registryOn(fakeTime());
    const outcomes: CandidateOutcome[] = [];
    const result = await runWithFallback(candidates, {
      registry,
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    expect(textOf(result)).toBe('other-key');
    expect(outcomes.map((outcome) => outcome.skipped ?? outcome.status)).toEqual([
      'failed',
      'same_credential',
      'succeeded',
    ]);
    expect(server.requests(auth)).toHaveLength(1);
    expect(server.requests(sameKey)).toHaveLength(0);
    expect(events).toContainEqual({
      type: 'credential-rejected',
      key: { provider: 'openai', model: 'gpt-4o', credentialId: 'shared' },
      reason: 'auth',
      ms: 300_000,
    });
    // Another provider holds another key, labelled or not.
    const otherProvider = answerScenario('other-provider');
    const moved = await runWithFallback(
      [
        chatCandidate(server, () => auth, { model: 'gpt-4o' }),
        chatCandidate(server, () => sameKey, { model: 'gpt-4o-mini' }),
        chatCandidate(server, () => otherProvider, { provider: 'groq', model: 'llama-3.3-70b' }),
      ],
      { registry },
    );
    expect(textOf(moved)).toBe('other-provider');
    expect(server.requests(sameKey)).toHaveLength(0);
    // Turned off: the chain ends on the rejected key.
    const off = (await failure(
      runWithFallback(candidates, { registry, fallbackOn: { auth: false } }),
    )) as FallbackChainError;
    expect(off.classification.reason).toBe('auth');
    expect(server.requests(otherKey)).toHaveLength(1);
  });

  it('a rejected key is set aside for every caller of the registry: one request learns it, the next calls send it none', async () => {
    const auth = loadScenario('openai/invalid-api-key');
    const backup = answerScenario('backup-key');
    const time = fakeTime();
    const { registry, events } = registryOn(time);
    const candidates = [
      chatCandidate(server, () => auth, { model: 'gpt-4o', credentialId: 'revoked' }),
      chatCandidate(server, () => auth, { model: 'gpt-4o-mini', credentialId: 'revoked' }),
      chatCandidate(server, () => backup, { provider: 'anthropic', model: 'claude-sonnet' }),
    ];
    const outcomes: CandidateOutcome[][] = [];
    const results = [await runWithFallback(candidates, { registry })];
    for (let call = 0; call < 20; call++) {
      const seen: CandidateOutcome[] = [];
      results.push(
        await runWithFallback(candidates, { registry, onOutcome: (outcome) => seen.push(outcome) }),
      );
      outcomes.push(seen);
    }
    expect(results.map(textOf)).toEqual(Array(21).fill('backup-key'));
    expect(server.requests(auth)).toHaveLength(1);
    expect(outcomes.at(-1)?.map((outcome) => outcome.skipped ?? outcome.status)).toEqual([
      'credential_rejected',
      'same_credential',
      'succeeded',
    ]);
    expect(events.filter((event) => event.type === 'credential-rejected')).toHaveLength(1);
    // Alone, the set-aside key ends the chain with its rejection (a person must fix it), no request sent.
    const alone = (await failure(runWithFallback([candidates[0]!], { registry }))) as FallbackChainError;
    expect(alone.classification.reason).toBe('auth');
    expect(alone.candidates[0]).toMatchObject({ status: 'skipped', skipped: 'credential_rejected' });
    expect(server.requests(auth)).toHaveLength(1);
    // After rejectedKeyMs (default 5 minutes) one call finds out whether a person fixed it.
    time.advance(300_000);
    await runWithFallback(candidates, { registry });
    expect(server.requests(auth)).toHaveLength(2);
  });

  it('a context overflow moves on by default only to a larger declared window, and fails at once when none is larger', async () => {
    const overflow = loadScenario('openai/context-length-exceeded');
    const smaller = answerScenario('smaller');
    const larger = answerScenario('larger');
    const registry = registryOn(fakeTime()).registry;
    const result = await runWithFallback(
      [
        chatCandidate(server, () => overflow, { model: 'gpt-4o', contextWindow: 128_000 }),
        chatCandidate(server, () => smaller, { model: 'small', contextWindow: 32_000 }),
        chatCandidate(server, () => larger, { model: 'long', contextWindow: 1_000_000 }),
      ],
      { registry },
    );
    expect(textOf(result)).toBe('larger');
    expect(server.requests(smaller)).toHaveLength(0);
    const none = (await failure(
      runWithFallback(
        [
          chatCandidate(server, () => overflow, { model: 'gpt-4o', contextWindow: 128_000 }),
          chatCandidate(server, () => smaller, { model: 'small', contextWindow: 32_000 }),
          // No declared window: not known to be larger.
          chatCandidate(server, () => smaller, { model: 'unknown-window' }),
        ],
        { registry },
      ),
    )) as FallbackChainError;
    expect(none.classification.reason).toBe('context_overflow');
    expect(none.candidates.map((outcome) => outcome.skipped ?? outcome.status)).toEqual([
      'failed',
      'smaller_context_window',
      'smaller_context_window',
    ]);
    expect(server.requests(smaller)).toHaveLength(0);
  });

  it('a context overflow with no declared windows moves on by the model catalog; a catalog of your own or none is honoured', async () => {
    const overflow = loadScenario('openai/context-length-exceeded');
    const smaller = answerScenario('catalog-smaller');
    const larger = answerScenario('catalog-larger');
    const registry = registryOn(fakeTime()).registry;
    // gpt-3.5-turbo's window is below gpt-4o-mini's and above gpt-4's in the shipped catalog.
    const gpt35 = modelLimits('openai', 'gpt-3.5-turbo')?.contextWindow ?? 0;
    expect(modelLimits('openai', 'gpt-4')?.contextWindow).toBeLessThan(gpt35);
    expect(modelLimits('openai', 'gpt-4o-mini')?.contextWindow).toBeGreaterThan(gpt35);
    const chain = () => [
      chatCandidate(server, () => overflow, { model: 'gpt-3.5-turbo' }),
      chatCandidate(server, () => smaller, { model: 'gpt-4' }),
      chatCandidate(server, () => larger, { model: 'gpt-4o-mini' }),
    ];
    expect(textOf(await runWithFallback(chain(), { registry, retry: false }))).toBe('catalog-larger');
    expect(server.requests(smaller)).toHaveLength(0);
    // Your own lookup, here over the shipped one: gpt-4 is now the larger window.
    const own = await runWithFallback(chain(), {
      registry,
      retry: false,
      modelCatalog: (provider, model) =>
        model === 'gpt-4' ? { contextWindow: gpt35 * 2 } : modelLimits(provider, model),
    });
    expect(textOf(own)).toBe('catalog-smaller');
    // No catalog: nothing to compare with, the chain ends at the overflow.
    const none = (await failure(
      runWithFallback(chain(), { registry, retry: false, modelCatalog: false }),
    )) as FallbackChainError;
    expect(none.classification.reason).toBe('context_overflow');
    expect(none.candidates.map((outcome) => outcome.skipped ?? outcome.status)).toEqual([
      'failed',
      'chain_ended',
      'chain_ended',
    ]);
    expect(server.requests(larger)).toHaveLength(1);
    await expect(runWithFallback(chain(), { modelCatalog: {} as never })).rejects.toThrow(
      /modelCatalog must be/,
    );
  });

  it("a candidate's own countTokens skips a prompt the lower bound lets through; a failing counter leaves it to the bound", async () => {
    const overflow = loadScenario('openai/context-length-exceeded');
    const large = answerScenario('counted-large');
    const registry = registryOn(fakeTime()).registry;
    const window = modelLimits('openai', 'gpt-3.5-turbo')?.contextWindow ?? 0;
    const sentence = 'The committee reviewed the quarterly figures before the meeting began. ';
    // About 1.25 windows at 4 characters a token: under the bound's count, over the window.
    const prompt = sentence.repeat(Math.ceil((window * 5) / sentence.length));
    const inputTokens = minimumTokenCount(prompt);
    expect(inputTokens).toBeLessThan(window);
    const counted: Array<AbortSignal | undefined> = [];
    // A counter of your own (here: prose at 4 characters a token), asynchronous as an API's would be.
    const countTokens = async ({ signal }: { signal: AbortSignal | undefined }) => {
      counted.push(signal);
      return Math.ceil(prompt.length / 4);
    };
    const outcomes: CandidateOutcome[] = [];
    const signal = new AbortController().signal;
    const chain = (counter: Candidate<unknown>['countTokens']) => [
      { ...chatCandidate(server, () => overflow, { model: 'gpt-3.5-turbo' }), countTokens: counter },
      chatCandidate(server, () => large, { model: 'gpt-4o-mini' }),
    ];
    const result = await runWithFallback(chain(countTokens), {
      registry,
      retry: false,
      inputTokens,
      signal,
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    expect(textOf(result)).toBe('counted-large');
    expect(server.requests(overflow)).toHaveLength(0);
    expect(counted).toEqual([signal]);
    expect(outcomes[0]).toMatchObject({
      skipped: 'input_over_window',
      inputTokens: Math.ceil(prompt.length / 4),
      contextWindow: window,
    });
    // A counter that throws (or counts nonsense) counts nothing: the bound lets the prompt through.
    for (const counter of [
      () => {
        throw new Error('tokenizer not loaded');
      },
      () => Number.NaN,
    ]) {
      const sent = await runWithFallback(chain(counter), { registry, retry: false, inputTokens });
      expect(textOf(sent)).toBe('counted-large');
    }
    expect(server.requests(overflow)).toHaveLength(2);
    // A prompt the bound already rules out is not counted.
    counted.length = 0;
    await runWithFallback(chain(countTokens), { registry, retry: false, inputTokens: window + 1 });
    expect(counted).toEqual([]);
    await expect(
      runWithFallback(chain(42 as unknown as Candidate<unknown>['countTokens']), { registry }),
    ).rejects.toThrow(/candidates\[0\]\.countTokens must be a function/);
  });

  it('a prompt larger than a window (inputTokens) skips that candidate with no request; one that might fit is sent', async () => {
    const overflow = loadScenario('openai/context-length-exceeded');
    const small = answerScenario('window-small');
    const unknown = answerScenario('window-unknown');
    const large = answerScenario('window-large');
    const registry = registryOn(fakeTime()).registry;
    const window = modelLimits('openai', 'gpt-3.5-turbo')?.contextWindow ?? 0;
    // Prose of about 4 characters a token: 12 characters a token of the window is 3 windows' worth.
    const sentence = 'The committee reviewed the quarterly figures before the meeting began. ';
    const longPrompt = sentence.repeat(Math.ceil((window * 12) / sentence.length));
    const inputTokens = minimumTokenCount(longPrompt);
    expect(inputTokens).toBeGreaterThan(window);
    const outcomes: CandidateOutcome[] = [];
    const result = await runWithFallback(
      [
        chatCandidate(server, () => small, { model: 'gpt-3.5-turbo' }),
        chatCandidate(server, () => unknown, { model: 'not-in-the-catalog', contextWindow: window }),
        chatCandidate(server, () => large, { model: 'gpt-4o-mini' }),
      ],
      { registry, retry: false, inputTokens, onOutcome: (outcome) => outcomes.push(outcome) },
    );
    expect(textOf(result)).toBe('window-large');
    expect(server.requests(small)).toHaveLength(0);
    expect(server.requests(unknown)).toHaveLength(0);
    expect(outcomes.slice(0, 2)).toEqual([
      expect.objectContaining({
        status: 'skipped',
        skipped: 'input_over_window',
        inputTokens,
        contextWindow: window,
      }),
      expect.objectContaining({
        status: 'skipped',
        skipped: 'input_over_window',
        inputTokens,
        contextWindow: window,
      }),
    ]);
    // A window the chain does not know is called; a prompt whose bound is under the window is sent
    // (here it overflows, and the chain moves on to the larger window as it would without the bound).
    const mightFit = sentence.repeat(Math.ceil((window * 5) / sentence.length));
    expect(minimumTokenCount(mightFit)).toBeLessThan(window);
    const sent = await runWithFallback(
      [
        chatCandidate(server, () => overflow, { model: 'gpt-3.5-turbo' }),
        chatCandidate(server, () => large, { model: 'gpt-4o-mini' }),
      ],
      { registry, retry: false, inputTokens: minimumTokenCount(mightFit) },
    );
    expect(textOf(sent)).toBe('window-large');
    expect(server.requests(overflow)).toHaveLength(1);
    expect(
      textOf(
        await runWithFallback([chatCandidate(server, () => unknown, { model: 'not-in-the-catalog' })], {
          registry,
          inputTokens,
        }),
      ),
    ).toBe('window-unknown');
    // No window large enough: a context overflow with the numbers, and no request at all.
    const none = (await failure(
      runWithFallback(
        [
          chatCandidate(server, () => small, { model: 'gpt-3.5-turbo' }),
          chatCandidate(server, () => small, { model: 'gpt-4' }),
        ],
        { registry, inputTokens },
      ),
    )) as FallbackChainError;
    expect(none.classification.reason).toBe('context_overflow');
    expect(none.toErrorReport().userAction.detail).toContain(`at least ${inputTokens} tokens`);
    expect(none.toErrorReport().userAction.detail).toContain(`${window} tokens`);
    expect(none.candidates.map((outcome) => outcome.skipped)).toEqual([
      'input_over_window',
      'input_over_window',
    ]);
    expect(server.requests(small)).toHaveLength(0);
    for (const bad of [-1, Number.NaN, '5'])
      await expect(
        runWithFallback([chatCandidate(server, () => small, { model: 'gpt-4' })], {
          inputTokens: bad as number,
        }),
      ).rejects.toThrow(/inputTokens must be a finite number/);
  });

  it('reads the taxonomy fallback column for each reason, through the real SDK and chain', async () => {
    // reason's scenario → does the chain move on to a backup on another provider and credential?
    const rows: ReadonlyArray<readonly [string, boolean, FallbackOptions['fallbackOn']?]> = [
      ['openai/insufficient-quota', true],
      ['openai/deepseek-insufficient-balance', true],
      ['openai/model-not-found', true],
      ['openai/organization-disabled', true],
      ['openai/overloaded-503', true],
      ['openai/server-error-json', true],
      ['openai/azure-content-filter', false],
      ['openai/azure-content-filter', true, { content_policy: true }],
      ['openai/together-invalid-request-422', false],
      ['openai/unsupported-media-type-415', false],
      ['openai/not-found-html', false],
      ['openai/insufficient-quota', false, { quota: false }],
    ];
    for (const [id, movesOn, fallbackOn] of rows) {
      const failing = loadScenario(id);
      const backup = answerScenario(`backup-for-${id}`);
      const registry = registryOn(fakeTime(), { breaker: false }).registry;
      const run = runWithFallback(
        [
          chatCandidate(server, () => failing, { model: 'gpt-4o' }),
          chatCandidate(server, () => backup, { provider: 'anthropic', model: 'claude', credentialId: 'b' }),
        ],
        { registry, retry: { maxAttempts: 2, baseDelayMs: 0 }, sleep: fakeTime().sleep, fallbackOn },
      );
      const answered = await run.then(
        (result) => textOf(result) === `backup-for-${id}`,
        (error: unknown) => (FallbackChainError.isInstance(error) ? false : error),
      );
      expect(answered, `${id} ${JSON.stringify(fallbackOn)}`).toBe(movesOn);
      expect(server.requests(backup), id).toHaveLength(movesOn ? 1 : 0);
    }
  });

  it('a reason that never moves on cannot be turned on: a TypeError before any request', async () => {
    const answer = answerScenario('never-called');
    for (const fallbackOn of [
      { invalid_request: true },
      { unknown: true },
      { not_a_reason: true },
      { quota: 'yes' },
    ]) {
      await expect(
        runWithFallback([chatCandidate(server, () => answer, { model: 'gpt-4o' })], {
          fallbackOn: fallbackOn as FallbackOptions['fallbackOn'],
        }),
      ).rejects.toThrow(TypeError);
    }
    await expect(
      runWithFallback([chatCandidate(server, () => answer, { model: 'gpt-4o' })], {
        retry: { maxAttempts: 0 },
      }),
    ).rejects.toThrow(/runWithFallback: retry.maxAttempts/);
    expect(() => streamWithFallback([], { retry: { baseDelayMs: -1 } })).toThrow(
      /streamWithFallback: retry.baseDelayMs/,
    );
    expect(server.requests(answer)).toHaveLength(0);
  });

  it("the caller's abort ends the chain untouched", async () => {
    const hang = loadScenario('openai/never-answer');
    const answer = answerScenario('never');
    const controller = new AbortController();
    const pending = runWithFallback(
      [
        chatCandidate(server, () => hang, { model: 'gpt-4o' }),
        chatCandidate(server, () => answer, { model: 'gpt-4o-mini' }),
      ],
      { registry: registryOn(fakeTime()).registry, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect(FaultlineError.isInstance(error)).toBe(false);
    expect((error as object).constructor.name).toMatch(/abort/i);
    expect(server.requests(answer)).toHaveLength(0);
  });
});

describe('total on any input', () => {
  it('a call that throws a non-Error is classified, never retried or passed on; no candidates is an error too', async () => {
    const answer = answerScenario('never');
    let calls = 0;
    const error = (await failure(
      runWithFallback(
        [
          {
            provider: 'custom',
            model: 'm',
            call: () => {
              calls++;
              throw 'a string, not an Error';
            },
          },
          chatCandidate(server, () => answer, { model: 'gpt-4o-mini' }),
        ],
        { registry: registryOn(fakeTime()).registry, retry: { maxAttempts: 3 } },
      ),
    )) as FallbackChainError;
    expect(FallbackChainError.isInstance(error)).toBe(true);
    expect(error.classification.reason).toBe('unknown');
    expect(calls).toBe(1);
    expect(server.requests(answer)).toHaveLength(0);

    const empty = (await failure(
      runWithFallback([], { registry: registryOn(fakeTime()).registry }),
    )) as FallbackChainError;
    expect(FallbackChainError.isInstance(empty)).toBe(true);
    expect(empty.candidates).toEqual([]);
    expect(() => JSON.stringify(empty)).not.toThrow();
  });
});

describe('shared cooldowns', () => {
  it('a 429 with Retry-After seen by one call keeps 49 concurrent calls off the key until it expires (counted at the server)', async () => {
    const limited = loadScenario('openai/rate-limit-retry-after-ms'); // retry-after-ms: 1500
    const answer = answerScenario('backup');
    const time = fakeTime();
    const { registry, events } = registryOn(time);
    const candidates = [
      chatCandidate(server, () => limited, { model: 'gpt-4o', credentialId: 'team-a' }),
      chatCandidate(server, () => answer, { provider: 'anthropic', model: 'claude' }),
    ];
    const options = { registry, sleep: time.sleep, retry: { maxAttempts: 3 } } as const;
    // The first call meets the 429: no retry (another candidate can answer now), the key cools.
    expect(textOf(await runWithFallback(candidates, options))).toBe('backup');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'cooldown', ms: 1500, reason: 'rate_limit' }),
    );
    const results = await Promise.all(Array.from({ length: 49 }, () => runWithFallback(candidates, options)));
    expect(results.map(textOf)).toEqual(Array(49).fill('backup'));
    expect(server.requests(limited)).toHaveLength(1);
    expect(server.requests(answer)).toHaveLength(50);
    // Another credential for the same model is another key: it is not cooled.
    const otherCredential = await failure(
      runWithFallback([chatCandidate(server, () => limited, { model: 'gpt-4o', credentialId: 'team-b' })], {
        ...options,
        retry: false,
      }),
    );
    expect((otherCredential as FallbackChainError).classification.reason).toBe('rate_limit');
    expect(server.requests(limited)).toHaveLength(2);
    // Once the wait has passed, the key is called again.
    time.advance(1500);
    await runWithFallback(candidates, options);
    expect(server.requests(limited)).toHaveLength(3);
  });

  it('a rate-limit reset header alone cools the key as long as it says', async () => {
    const reset = loadScenario('openai/rate-limit-reset-headers-only'); // x-ratelimit-reset-tokens: 20s
    const time = fakeTime();
    const { registry, events } = registryOn(time);
    const candidate = chatCandidate(server, () => reset, { model: 'gpt-4o' });
    await failure(runWithFallback([candidate], { registry, retry: false }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'cooldown', ms: 20_000 }));
    time.advance(19_999);
    expect((await registry.admit(candidate)).kind).toBe('cooling');
    time.advance(1);
    expect((await registry.admit(candidate)).kind).toBe('allow');
  });

  it('with no other candidate left, waits for a cooling key within the cap, and refuses beyond it', async () => {
    const limited = loadScenario('openai/rate-limit-retry-after-ms');
    let healthy = false;
    const answer = answerScenario('after-wait');
    const time = fakeTime();
    const { registry } = registryOn(time);
    const only = [chatCandidate(server, () => (healthy ? answer : limited), { model: 'gpt-4o' })];
    await failure(runWithFallback(only, { registry, sleep: time.sleep, retry: false }));
    healthy = true;
    // Cap below the wait: refused at once without a request.
    const refused = (await failure(
      runWithFallback(only, { registry, sleep: time.sleep, maxCooldownWaitMs: 100 }),
    )) as FallbackChainError;
    expect(refused.candidates[0]).toMatchObject({ status: 'skipped', skipped: 'cooling' });
    expect(refused.classification.reason).toBe('rate_limit');
    expect(refused.classification.retryAfterSeconds).toBeGreaterThan(0);
    expect(server.requests(answer)).toHaveLength(0);
    // Within the cap: waits (on the fake clock) and calls.
    const result = await runWithFallback(only, { registry, sleep: time.sleep, maxCooldownWaitMs: 10_000 });
    expect(textOf(result)).toBe('after-wait');
    expect(time.slept).toEqual([1500]);
  });
});

describe('circuit breaker', () => {
  it('opens at the threshold, refuses, probes once when half-open, reopens for longer, then closes', async () => {
    const down = loadScenario('openai/server-error-json');
    const up = answerScenario('primary');
    const backup = answerScenario('backup');
    let healthy = false;
    const primaryScenario = (): ResponseScenario => (healthy ? up : down);
    const time = fakeTime();
    const { registry, events } = registryOn(time, {
      breaker: { failureThreshold: 3, windowMs: 10_000, openMs: 5_000, backoffFactor: 2, maxOpenMs: 60_000 },
      retryBudget: false,
    });
    const candidates = [
      chatCandidate(server, primaryScenario, { model: 'gpt-4o' }),
      chatCandidate(server, () => backup, { provider: 'mistral', model: 'mistral-large' }),
    ];
    const run = () => runWithFallback(candidates, { registry, retry: false, sleep: time.sleep });
    const primaryCalls = () => server.requests(down).length + server.requests(up).length;

    for (let call = 0; call < 3; call++) expect(textOf(await run())).toBe('backup');
    expect(primaryCalls()).toBe(3);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'breaker-open', ms: 5000, afterProbe: false }),
    );
    // Open: the primary is not called.
    await run();
    expect(primaryCalls()).toBe(3);

    // Half-open: of ten concurrent calls exactly one is the probe; it fails, the breaker reopens for 2×.
    time.advance(5000);
    const concurrent = await Promise.all(Array.from({ length: 10 }, run));
    expect(concurrent.map(textOf)).toEqual(Array(10).fill('backup'));
    expect(primaryCalls()).toBe(4);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'breaker-open', ms: 10_000, afterProbe: true }),
    );
    time.advance(5000);
    await run();
    expect(primaryCalls()).toBe(4);

    // The provider recovers: the next probe succeeds and closes the breaker.
    healthy = true;
    time.advance(5000);
    expect(textOf(await run())).toBe('primary');
    expect(events.at(-1)).toMatchObject({ type: 'breaker-closed' });
    expect(textOf(await run())).toBe('primary');
    expect(primaryCalls()).toBe(6);
  });

  it('with its defaults probes soon: after a short interval that grows with each failed probe, or after the wait the tripping failure named; a successful probe brings traffic back at once', async () => {
    const down = loadScenario('openai/server-error-json');
    const up = answerScenario('primary-back');
    const backup = answerScenario('backup-meanwhile');
    let healthy = false;
    const time = fakeTime();
    const { registry, events } = registryOn(time, { breaker: { failureThreshold: 2 }, retryBudget: false });
    const candidates = [
      chatCandidate(server, () => (healthy ? up : down), { model: 'gpt-4o-defaults' }),
      chatCandidate(server, () => backup, { provider: 'mistral', model: 'mistral-large' }),
    ];
    const run = async () => textOf(await runWithFallback(candidates, { registry, retry: false }));
    const primaryCalls = () => server.requests(down).length + server.requests(up).length;
    await run();
    await run();
    expect(primaryCalls()).toBe(2);
    // Open for 1 s, then probes 2 s after each failed one: never more than 2 s apart.
    const opened = () =>
      events.filter((event) => event.type === 'breaker-open').map((event) => (event as { ms: number }).ms);
    for (const ms of [1_000, 2_000, 2_000]) {
      expect(opened().at(-1)).toBe(ms);
      time.advance(ms - 1);
      expect(await run()).toBe('backup-meanwhile');
      const before = primaryCalls();
      time.advance(1);
      expect(await run()).toBe('backup-meanwhile');
      expect(primaryCalls(), `one probe after ${ms} ms`).toBe(before + 1);
    }
    expect(opened()).toEqual([1_000, 2_000, 2_000, 2_000]);
    healthy = true;
    time.advance(2_000);
    expect(await run()).toBe('primary-back');
    expect(events.at(-1)).toMatchObject({ type: 'breaker-closed' });
    // Closed at once: every next call goes to the primary.
    expect([await run(), await run(), await run()]).toEqual(Array(3).fill('primary-back'));
    expect(server.requests(up)).toHaveLength(4);

    // A failure that names its wait (a 503 with Retry-After) opens the breaker for exactly that wait.
    const busy: ResponseScenario = {
      response: {
        kind: 'http',
        status: 503,
        headers: { 'retry-after': '7' },
        body: JSON.stringify({
          error: { message: 'The engine is currently overloaded.', type: 'server_error' },
        }),
      },
    };
    const named = registryOn(time, { breaker: { failureThreshold: 1 }, retryBudget: false });
    const overloaded = chatCandidate(server, () => busy, { model: 'gpt-4o-named-wait' });
    await failure(runWithFallback([overloaded], { registry: named.registry, retry: false }));
    expect(named.events).toContainEqual(
      expect.objectContaining({ type: 'breaker-open', ms: 7_000, afterProbe: false }),
    );
    time.advance(6_999);
    expect((await named.registry.admit(overloaded)).kind).toBe('cooling');
    time.advance(1);
    expect((await named.registry.admit(overloaded)).kind).toBe('probe');
  });

  it('a stream cut after output does not count toward the breaker; an error event after output does', async () => {
    const cut = loadScenario('openai/stream-cut');
    const event = loadScenario('openai/stream-error-event');
    const time = fakeTime();
    const { registry, events } = registryOn(time, { breaker: { failureThreshold: 2 }, retryBudget: false });
    const drainChain = async (scenario: ResponseScenario, model: string) => {
      try {
        for await (const _chunk of streamWithFallback([streamCandidate(server, scenario, { model })], {
          registry,
          retry: false,
        })) {
          // drain
        }
      } catch (error) {
        return error as FallbackChainError;
      }
      throw new Error('expected the stream to fail');
    };
    for (let call = 0; call < 4; call++)
      expect((await drainChain(cut, 'gpt-4o-cut')).classification.reason).toBe('interrupted');
    expect(server.requests(cut)).toHaveLength(4);
    expect(events.filter((entry) => entry.type === 'breaker-open')).toEqual([]);
    expect(await registry.admit({ provider: 'openai', model: 'gpt-4o-cut' })).toEqual({ kind: 'allow' });
    // The provider said it failed, in the stream: that counts.
    for (let call = 0; call < 2; call++)
      expect((await drainChain(event, 'gpt-4o-event')).classification.reason).toBe('server_error');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'breaker-open',
        key: expect.objectContaining({ model: 'gpt-4o-event' }),
      }),
    );
  });

  it("a probe ended by the caller's abort gives its slot back", async () => {
    const down = loadScenario('openai/server-error-json');
    const hang = loadScenario('openai/never-answer');
    let scenario: ResponseScenario = down;
    const time = fakeTime();
    const { registry } = registryOn(time, { breaker: { failureThreshold: 1, openMs: 1000 } });
    const candidate = chatCandidate(server, () => scenario, { model: 'gpt-4o-probe' });
    await failure(runWithFallback([candidate], { registry, retry: false }));
    time.advance(1000);
    scenario = hang;
    const controller = new AbortController();
    const pending = failure(runWithFallback([candidate], { registry, signal: controller.signal }));
    while (server.requests(hang).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await pending;
    expect((await registry.admit(candidate)).kind).toBe('probe');
  });

  it('never counts a 4xx verdict', async () => {
    const quota = loadScenario('openai/insufficient-quota');
    const bad = loadScenario('openai/together-invalid-request-422');
    const time = fakeTime();
    const { registry, events } = registryOn(time, {
      breaker: { failureThreshold: 2 },
      capacityCooldownMs: 0,
    });
    for (const scenario of [quota, bad, quota, bad, quota]) {
      await failure(
        runWithFallback([chatCandidate(server, () => scenario, { model: 'gpt-4o' })], { registry }),
      );
    }
    expect(events.filter((event) => event.type === 'breaker-open')).toEqual([]);
    expect(await registry.admit({ provider: 'openai', model: 'gpt-4o' })).toEqual({ kind: 'allow' });
  });
});

describe('retry budget', () => {
  it('caps retries during an outage to a fraction of the call volume (counted at the server)', async () => {
    const overloaded = loadScenario('openai/overloaded-503');
    const calls = 40;
    const run = async (retryBudget: false | { ratio: number; minRetries: number }) => {
      const time = fakeTime();
      const { registry } = registryOn(time, { breaker: false, retryBudget });
      const before = server.requests(overloaded).length;
      const candidates: Candidate<unknown>[] = [chatCandidate(server, () => overloaded, { model: 'gpt-4o' })];
      await Promise.all(
        Array.from({ length: calls }, () =>
          failure(runWithFallback(candidates, { registry, retry: { maxAttempts: 3 }, sleep: time.sleep })),
        ),
      );
      return server.requests(overloaded).length - before;
    };
    const unbudgeted = await run(false);
    const budgeted = await run({ ratio: 0.1, minRetries: 2 });
    expect(unbudgeted).toBe(calls * 3);
    expect(budgeted).toBeGreaterThanOrEqual(calls);
    expect(budgeted).toBeLessThanOrEqual(calls + 0.1 * calls + 2);
  });
});

describe("the registry between attempts (render's retry loop, through its hooks)", () => {
  it('a spent budget stops the retries before any wait; a breaker open after the wait stops them before the next request', async () => {
    const down = loadScenario('openai/server-error-json');
    const answer = answerScenario('backup');
    const candidates = [
      chatCandidate(server, () => down, { model: 'gpt-4o' }),
      chatCandidate(server, () => answer, { provider: 'anthropic', model: 'claude' }),
    ];
    const run = async (options: ConstructorParameters<typeof HealthRegistry>[0]) => {
      const time = fakeTime();
      const { registry, events } = registryOn(time, options);
      const outcomes: CandidateOutcome[] = [];
      const before = server.requests(down).length;
      const result = await runWithFallback(candidates, {
        registry,
        sleep: time.sleep,
        onOutcome: (outcome) => outcomes.push(outcome),
      });
      expect(textOf(result)).toBe('backup');
      return { outcome: outcomes[0], events, slept: time.slept, sent: server.requests(down).length - before };
    };
    // No budget left: asked before the wait, so nothing is slept and nothing more is sent.
    const budget = await run({ breaker: false, retryBudget: { ratio: 0, minRetries: 0 } });
    expect(budget.outcome).toMatchObject({
      status: 'failed',
      attempts: 1,
      retryStopped: 'retry_budget',
      waitsMs: [],
    });
    expect(budget.slept).toEqual([]);
    expect(budget.sent).toBe(1);
    expect(budget.events).toContainEqual(expect.objectContaining({ type: 'retry-budget-exhausted' }));
    // The failure trips the breaker: asked after the wait, so the retry is never sent.
    const breaker = await run({ breaker: { failureThreshold: 1 }, retryBudget: false });
    expect(breaker.outcome).toMatchObject({ status: 'failed', attempts: 1, retryStopped: 'breaker_open' });
    expect(breaker.slept).toHaveLength(1);
    expect(breaker.sent).toBe(1);
    // Both allow: the default three attempts, then the next candidate.
    const allowed = await run({ breaker: false, retryBudget: false });
    expect(allowed.outcome).toMatchObject({ status: 'failed', attempts: 3 });
    expect(allowed.outcome?.retryStopped).toBeUndefined();
    expect(allowed.sent).toBe(3);
  });

  it("the caller's abort during a retry's wait ends the chain at once, untouched", async () => {
    const down = loadScenario('openai/server-error-json');
    const answer = answerScenario('never');
    const controller = new AbortController();
    const pending = runWithFallback(
      [
        chatCandidate(server, () => down, { model: 'gpt-4o' }),
        chatCandidate(server, () => answer, { provider: 'anthropic', model: 'claude' }),
      ],
      {
        registry: registryOn(fakeTime(), { breaker: false }).registry,
        signal: controller.signal,
        // A wait far longer than the test: only the abort can end it.
        retry: {
          baseDelayMs: 600_000,
          maxDelayMs: 600_000,
          random: () => 1,
          onRetry: () => controller.abort(),
        },
      },
    );
    const error = await failure(pending);
    expect(error).toBe(controller.signal.reason);
    expect(server.requests(answer)).toHaveLength(0);
  });
});

describe('streams', () => {
  it('a guarded stream that fails before its first chunk falls back to the next candidate', async () => {
    const overloaded = loadScenario('openai/overloaded-503');
    const answer = streamScenario(['Hel', 'lo']);
    const chunks: string[] = [];
    for await (const chunk of streamWithFallback(
      [
        streamCandidate(server, overloaded, { model: 'gpt-4o' }),
        streamCandidate(server, answer, { model: 'gpt-4o-mini' }),
      ],
      { registry: registryOn(fakeTime()).registry, retry: false },
    )) {
      chunks.push(deltaText(chunk));
    }
    expect(chunks.join('')).toBe('Hello');
    expect(server.requests(overloaded)).toHaveLength(1);
  });

  it('after output was delivered, does not fall back unless opted in, and then says what was delivered', async () => {
    const cut = loadScenario('openai/stream-cut');
    const answer = streamScenario(['Good', 'bye']);
    const candidates = [
      streamCandidate(server, cut, { model: 'gpt-4o' }),
      streamCandidate(server, answer, { model: 'gpt-4o-mini' }),
    ];
    const registry = registryOn(fakeTime()).registry;
    const seen: string[] = [];
    const error = await (async () => {
      try {
        for await (const chunk of streamWithFallback(candidates, { registry, idempotent: true })) {
          seen.push(deltaText(chunk));
        }
      } catch (thrown) {
        return thrown;
      }
      throw new Error('expected the stream to fail');
    })();
    expect(seen.join('')).toBe('Hello');
    const chain = error as FallbackChainError;
    expect(chain.classification.reason).toBe('interrupted');
    expect(chain.candidates[0]?.delivered?.chunks).toBe(2);
    expect(chain.candidates[1]).toMatchObject({ status: 'skipped', skipped: 'chain_ended' });
    expect(server.requests(answer)).toHaveLength(0);

    const optedIn: string[] = [];
    const outcomes: CandidateOutcome[] = [];
    for await (const chunk of streamWithFallback(candidates, {
      registry,
      fallbackAfterOutput: true,
      onOutcome: (outcome) => outcomes.push(outcome),
    })) {
      optedIn.push(deltaText(chunk));
    }
    expect(optedIn.join('')).toBe('HelloGoodbye');
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['failed', 'succeeded']);
    expect(outcomes[0]?.delivered).toEqual({ chunks: 2, characters: 5 });
    expect(server.requests(answer)).toHaveLength(1);
  });
});
