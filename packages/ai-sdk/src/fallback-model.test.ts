// biome-ignore-all lint/suspicious/noThenProperty: the scenario format's field
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { ErrorReport } from '@faultline/render';
import { FaultlineError } from '@faultline/render';
import {
  type CandidateOutcome,
  FallbackChainError,
  HealthRegistry,
  modelLimits,
} from '@faultline/resilience';
import {
  type LoopbackServer,
  loadScenario,
  openaiChatCompletion,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { createAnthropic as createAnthropicV2 } from 'ai-sdk-anthropic-v2';
import { createOpenAI as createOpenAIV2 } from 'ai-sdk-openai-v2';
import * as ai5 from 'ai-v5';
import * as ai6 from 'ai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultlineFallbackOptions, faultlineFallback } from './fallback-model.ts';
import { completeStream, ERROR_EVENT_SCENARIOS, failingStream } from './test-support.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

const KEY = 'sk-test-faultline-canary-fallback-0123456789';

/** A fresh registration (its own token, so its request count is its own). */
const fresh = (scenario: Pick<Scenario, 'response'>): Pick<Scenario, 'response'> => ({
  response: structuredClone(scenario.response),
});
const recorded = (id: string) => fresh(loadScenario(id));

const anthropicAnswer = (text: string): Pick<Scenario, 'response'> => ({
  response: {
    kind: 'http',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: 'msg_01FaultlineBackup',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 3 },
    }),
  },
});

/** A 200 stream whose first event is the provider's error: nothing was delivered before it. */
const errorFirstStream = (): Pick<Scenario, 'response'> => {
  const response = structuredClone(loadScenario(ERROR_EVENT_SCENARIOS.openai).response);
  if (response.kind !== 'sse') throw new Error('not a stream');
  return { response: { ...response, events: response.events.slice(-1) } };
};

const NO_WAIT = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

/** What a streamText surface gave: its text, and what it threw after it. */
interface Streamed {
  readonly text: string;
  readonly thrown: unknown;
}

/**
 * The calls a test makes, typed per major as a user's app makes them: each major's own provider
 * packages, `faultlineFallback` over their models, and that major's `generateText` / `streamText`.
 */
interface Kit {
  readonly alias: string;
  generate(
    models: readonly ModelSpec[],
    options: Omit<FaultlineFallbackOptions<never>, 'models'>,
    input?: Input,
  ): Promise<string>;
  stream(
    models: readonly ModelSpec[],
    options: Omit<FaultlineFallbackOptions<never>, 'models'>,
    input?: Input,
  ): Promise<Streamed>;
}

/** What a call sends: a prompt (default `hi`), with an image beside it. */
interface Input {
  readonly prompt: string;
  readonly image?: Uint8Array;
}

/** The call's prompt, as `generateText` takes it in both majors. */
const promptOf = (input: Input | undefined) =>
  input?.image === undefined
    ? { prompt: input?.prompt ?? 'hi' }
    : {
        messages: [
          {
            role: 'user' as const,
            content: [
              { type: 'text' as const, text: input.prompt },
              { type: 'image' as const, image: input.image, mediaType: 'image/png' },
            ],
          },
        ],
      };

interface ModelSpec {
  readonly provider: 'openai' | 'anthropic';
  readonly modelId: string;
  readonly scenario: Pick<Scenario, 'response'>;
  readonly contextWindow?: number;
  readonly credentialId?: string;
  readonly countTokens?: (prompt: unknown) => number | Promise<number>;
}

async function drain(
  stream: AsyncIterable<{ type: string; text?: string; error?: unknown }>,
): Promise<Streamed> {
  let text = '';
  let errorPart: unknown;
  try {
    for await (const part of stream) {
      if (part.type === 'text-delta') text += part.text ?? '';
      if (part.type === 'error') errorPart = part.error;
    }
  } catch (thrown) {
    if (errorPart !== undefined)
      expect(thrown, "the stream fails with its error part's error").toBe(errorPart);
    return { text, thrown };
  }
  if (errorPart !== undefined)
    return { text, thrown: new Error('the stream ended normally after an error part') };
  return { text, thrown: undefined };
}

const KITS: readonly Kit[] = [
  (() => {
    const modelOf = (spec: ModelSpec) => {
      const baseURL = `${server.baseUrlFor(spec.scenario)}/v1`;
      const model =
        spec.provider === 'openai'
          ? createOpenAI({ baseURL, apiKey: KEY }).chat(spec.modelId)
          : createAnthropic({ baseURL, apiKey: KEY })(spec.modelId);
      return spec.contextWindow === undefined &&
        spec.credentialId === undefined &&
        spec.countTokens === undefined
        ? model
        : {
            model,
            contextWindow: spec.contextWindow,
            credentialId: spec.credentialId,
            countTokens: spec.countTokens,
          };
    };
    return {
      alias: 'ai-v6',
      generate: async (models, options, input) =>
        (
          await ai6.generateText({
            model: faultlineFallback({ ...options, models: models.map(modelOf) }),
            ...promptOf(input),
            maxRetries: 0,
          })
        ).text,
      stream: (models, options, input) =>
        drain(
          ai6.streamText({
            model: faultlineFallback({ ...options, models: models.map(modelOf) }),
            ...promptOf(input),
            maxRetries: 0,
            onError: () => undefined,
          }).fullStream,
        ),
    } satisfies Kit;
  })(),
  (() => {
    const modelOf = (spec: ModelSpec) => {
      const baseURL = `${server.baseUrlFor(spec.scenario)}/v1`;
      const model =
        spec.provider === 'openai'
          ? createOpenAIV2({ baseURL, apiKey: KEY }).chat(spec.modelId)
          : createAnthropicV2({ baseURL, apiKey: KEY })(spec.modelId);
      return spec.contextWindow === undefined &&
        spec.credentialId === undefined &&
        spec.countTokens === undefined
        ? model
        : {
            model,
            contextWindow: spec.contextWindow,
            credentialId: spec.credentialId,
            countTokens: spec.countTokens,
          };
    };
    return {
      alias: 'ai-v5',
      generate: async (models, options, input) =>
        (
          await ai5.generateText({
            model: faultlineFallback({ ...options, models: models.map(modelOf) }),
            ...promptOf(input),
            maxRetries: 0,
          })
        ).text,
      stream: (models, options, input) =>
        drain(
          ai5.streamText({
            model: faultlineFallback({ ...options, models: models.map(modelOf) }),
            ...promptOf(input),
            maxRetries: 0,
            onError: () => undefined,
          }).fullStream,
        ),
    } satisfies Kit;
  })(),
];

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('resolved without throwing');
}

function reportOf(error: unknown): ErrorReport {
  if (!FaultlineError.isInstance(error)) throw new Error(`not a FaultlineError: ${String(error)}`);
  return error.toErrorReport();
}

for (const kit of KITS) {
  describe(`${kit.alias}: faultlineFallback over the real provider packages`, () => {
    it('a spent quota moves on to the backup at once, and the quota key gets no further request', async () => {
      const quota = recorded('openai/insufficient-quota');
      const backup = anthropicAnswer('from the backup');
      const registry = new HealthRegistry();
      const outcomes: CandidateOutcome[] = [];
      const models: ModelSpec[] = [
        { provider: 'openai', modelId: 'gpt-4o', scenario: quota },
        { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backup },
      ];
      const options = { registry, onOutcome: (outcome: CandidateOutcome) => outcomes.push(outcome) };
      expect(await kit.generate(models, options)).toBe('from the backup');
      expect(outcomes.map((outcome) => [outcome.status, outcome.report?.reason, outcome.attempts])).toEqual([
        ['failed', 'quota', 1],
        ['succeeded', undefined, 1],
      ]);
      // The next call skips the key the spent allowance cooled: no request pays to learn it again.
      outcomes.length = 0;
      expect(await kit.generate(models, options)).toBe('from the backup');
      expect(outcomes.map((outcome) => [outcome.status, outcome.skipped])).toEqual([
        ['skipped', 'cooling'],
        ['succeeded', undefined],
      ]);
      expect(server.requests(quota)).toHaveLength(1);
      expect(server.requests(backup)).toHaveLength(2);
      expect(JSON.stringify(outcomes)).not.toContain(KEY);
    });

    it('a context overflow moves on only to a candidate with a larger declared window', async () => {
      const overflow = recorded('openai/context-length-exceeded');
      const smaller = fresh(openaiChatCompletion('from the smaller model'));
      const larger = anthropicAnswer('from the larger window');
      const outcomes: CandidateOutcome[] = [];
      const text = await kit.generate(
        [
          { provider: 'openai', modelId: 'gpt-4o', scenario: overflow, contextWindow: 128_000 },
          { provider: 'openai', modelId: 'gpt-4o-mini', scenario: smaller, contextWindow: 64_000 },
          { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: larger, contextWindow: 200_000 },
        ],
        { registry: new HealthRegistry(), onOutcome: (outcome) => outcomes.push(outcome) },
      );
      expect(text).toBe('from the larger window');
      expect(outcomes.map((outcome) => outcome.skipped ?? outcome.status)).toEqual([
        'failed',
        'smaller_context_window',
        'succeeded',
      ]);
      expect(server.requests(overflow)).toHaveLength(1);
      expect(server.requests(smaller)).toHaveLength(0);
    });

    it("a prompt larger than a candidate's window (the catalog's) is not sent to it; an image's bytes do not count", async () => {
      const primary = fresh(openaiChatCompletion('from the primary'));
      const backup = anthropicAnswer('from the larger window');
      const registry = new HealthRegistry();
      const outcomes: CandidateOutcome[] = [];
      // gpt-3.5-turbo's window is 16k tokens in the catalog: about 200 000 characters of prose
      // take three times that in any tokenizer.
      const window = modelLimits('openai', 'gpt-3.5-turbo')?.contextWindow;
      expect(window).toBeLessThan(20_000);
      const long = 'The committee reviewed the quarterly figures before the meeting began. '.repeat(2_800);
      const models: ModelSpec[] = [
        { provider: 'openai', modelId: 'gpt-3.5-turbo', scenario: primary },
        { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backup },
      ];
      const options = { registry, onOutcome: (outcome: CandidateOutcome) => outcomes.push(outcome) };
      expect(await kit.generate(models, options, { prompt: long })).toBe('from the larger window');
      expect(outcomes[0]).toMatchObject({
        status: 'skipped',
        skipped: 'input_over_window',
        contextWindow: window,
      });
      expect(outcomes[0]?.inputTokens).toBeGreaterThan(window ?? Number.POSITIVE_INFINITY);
      expect(server.requests(primary)).toHaveLength(0);
      // A short prompt beside a large image: the image is counted by the model, not by its bytes.
      const image = new Uint8Array(400_000).map((_, index) => (index * 7919) % 256);
      expect(await kit.generate(models, options, { prompt: 'describe it', image })).toBe('from the primary');
      expect(server.requests(primary)).toHaveLength(1);
      // A stream is measured the same way before it opens.
      const primaryStream = completeStream('openai');
      const backupStream = completeStream('anthropic');
      outcomes.length = 0;
      const streamed = await kit.stream(
        [
          { provider: 'openai', modelId: 'gpt-3.5-turbo', scenario: primaryStream },
          { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backupStream },
        ],
        options,
        { prompt: long },
      );
      expect(streamed.thrown).toBeUndefined();
      expect(outcomes.map((outcome) => outcome.skipped ?? outcome.status)).toEqual([
        'input_over_window',
        'succeeded',
      ]);
      expect(server.requests(primaryStream)).toHaveLength(0);
      expect(server.requests(backupStream)).toHaveLength(1);
    });

    it("a model's own countTokens skips a prompt the lower bound lets through, with no request", async () => {
      const primary = fresh(openaiChatCompletion('from the primary'));
      const backup = anthropicAnswer('from the larger window');
      const outcomes: CandidateOutcome[] = [];
      const window = modelLimits('openai', 'gpt-3.5-turbo')?.contextWindow ?? 0;
      // About 1.25 windows of prose at 4 characters a token: under the bound, over the window.
      const sentence = 'The committee reviewed the quarterly figures before the meeting began. ';
      const long = sentence.repeat(Math.ceil((window * 5) / sentence.length));
      const prompts: unknown[] = [];
      const countTokens = (prompt: unknown) => {
        prompts.push(prompt);
        return Math.ceil(JSON.stringify(prompt).length / 4);
      };
      const models: ModelSpec[] = [
        { provider: 'openai', modelId: 'gpt-3.5-turbo', scenario: primary, countTokens },
        { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backup },
      ];
      const options = {
        registry: new HealthRegistry(),
        onOutcome: (outcome: CandidateOutcome) => outcomes.push(outcome),
      };
      expect(await kit.generate(models, options, { prompt: long })).toBe('from the larger window');
      expect(server.requests(primary)).toHaveLength(0);
      expect(outcomes[0]).toMatchObject({ skipped: 'input_over_window', contextWindow: window });
      expect(outcomes[0]?.inputTokens).toBeGreaterThan(window);
      // The counter was given the call's prompt, as the model would have been.
      expect(JSON.stringify(prompts[0])).toContain(sentence.trim());
    });

    it("a success's rate-limit headers pace the next calls: a spent key is left for the backup before it answers 429 (calls and streams)", async () => {
      const budget = (remaining: number) => ({
        'x-ratelimit-limit-requests': '100',
        'x-ratelimit-remaining-requests': String(remaining),
        'x-ratelimit-reset-requests': '20s',
      });
      const withBudget = (scenario: Pick<Scenario, 'response'>, remaining: number) => {
        const response = scenario.response;
        if (response.kind !== 'http' && response.kind !== 'sse') throw new Error('not an answer');
        return { response: { ...response, headers: { ...response.headers, ...budget(remaining) } } };
      };
      for (const stream of [false, true]) {
        const backup = stream ? completeStream('anthropic') : anthropicAnswer('from the backup');
        const answer = stream ? completeStream('openai') : fresh(openaiChatCompletion('from the primary'));
        const left = withBudget(answer, 5);
        const spent = withBudget(answer, 0);
        const registry = new HealthRegistry();
        const outcomes: CandidateOutcome[] = [];
        const options = { registry, onOutcome: (outcome: CandidateOutcome) => outcomes.push(outcome) };
        const call = async (primary: Pick<Scenario, 'response'>) => {
          const models: ModelSpec[] = [
            { provider: 'openai', modelId: `gpt-4o-budget-${stream}`, scenario: primary },
            { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backup },
          ];
          if (!stream) return kit.generate(models, options);
          const streamed = await kit.stream(models, options);
          if (streamed.thrown !== undefined) throw streamed.thrown;
          return streamed.text;
        };
        // Requests left: the next call goes to the primary too.
        await call(left);
        await call(left);
        expect(server.requests(left)).toHaveLength(2);
        // Nothing left until the reset: the next call is not sent to the primary.
        await call(spent);
        outcomes.length = 0;
        await call(spent);
        expect(outcomes[0]).toMatchObject({ status: 'skipped', skipped: 'cooling' });
        expect(outcomes[1]).toMatchObject({ status: 'succeeded' });
        expect(server.requests(spent)).toHaveLength(1);
        expect(server.requests(backup)).toHaveLength(1);
      }
    });

    it('a 400 no model can fix does not move on: one request, a classified FaultlineError', async () => {
      const invalid = recorded('anthropic/invalid-request');
      const backup = fresh(openaiChatCompletion('never asked'));
      const error = await rejection(() =>
        kit.generate(
          [
            { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: invalid },
            { provider: 'openai', modelId: 'gpt-4o', scenario: backup },
          ],
          { registry: new HealthRegistry() },
        ),
      );
      expect(FallbackChainError.isInstance(error)).toBe(true);
      const report = reportOf(error);
      expect([report.category, report.reason, report.retryable]).toEqual([
        'content',
        'invalid_request',
        false,
      ]);
      expect(
        (error as FallbackChainError).candidates.map((outcome) => outcome.skipped ?? outcome.status),
      ).toEqual(['failed', 'chain_ended']);
      expect(server.requests(invalid)).toHaveLength(1);
      expect(server.requests(backup)).toHaveLength(0);
      expect(JSON.stringify(report)).not.toContain(KEY);
    });

    it('a stream cut after output does not move on: the stream fails with what was delivered', async () => {
      const cut = failingStream('openai', 'cut');
      const backup = completeStream('anthropic');
      const streamed = await kit.stream(
        [
          { provider: 'openai', modelId: 'gpt-4o', scenario: cut },
          { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backup },
        ],
        { registry: new HealthRegistry(), retry: NO_WAIT },
      );
      expect(streamed.text.length).toBeGreaterThan(0);
      const report = reportOf(streamed.thrown);
      expect(report.reason).toBe('interrupted');
      expect((streamed.thrown as FaultlineError).delivered?.characters).toBe(streamed.text.length);
      expect(server.requests(cut)).toHaveLength(1);
      expect(server.requests(backup)).toHaveLength(0);
    });

    it('a stream cut after output moves on when the caller asks (fallbackAfterOutput)', async () => {
      const cut = failingStream('openai', 'cut');
      const backup = completeStream('anthropic');
      const alone = await kit.stream(
        [{ provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: completeStream('anthropic') }],
        {},
      );
      const outcomes: CandidateOutcome[] = [];
      const streamed = await kit.stream(
        [
          { provider: 'openai', modelId: 'gpt-4o', scenario: cut },
          { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backup },
        ],
        {
          registry: new HealthRegistry(),
          retry: false,
          fallbackAfterOutput: true,
          onOutcome: (outcome) => outcomes.push(outcome),
        },
      );
      expect(streamed.thrown).toBeUndefined();
      const delivered = outcomes[0]?.delivered?.characters ?? 0;
      expect(delivered).toBeGreaterThan(0);
      // The failed candidate's output, then the backup's whole answer.
      expect(streamed.text.slice(delivered)).toBe(alone.text);
      expect(server.requests(backup)).toHaveLength(1);
    });

    it('a 200 stream that begins with an error part moves on (after its retries): the backup answers', async () => {
      const failing = errorFirstStream();
      const backup = completeStream('anthropic');
      const alone = await kit.stream(
        [{ provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: completeStream('anthropic') }],
        {},
      );
      expect(alone.thrown).toBeUndefined();
      const outcomes: CandidateOutcome[] = [];
      const streamed = await kit.stream(
        [
          { provider: 'openai', modelId: 'gpt-4o', scenario: failing },
          { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: backup },
        ],
        { registry: new HealthRegistry(), retry: NO_WAIT, onOutcome: (outcome) => outcomes.push(outcome) },
      );
      expect(streamed).toEqual({ text: alone.text, thrown: undefined });
      expect(outcomes.map((outcome) => [outcome.status, outcome.report?.reason, outcome.attempts])).toEqual([
        ['failed', 'server_error', 2],
        ['succeeded', undefined, 1],
      ]);
      expect(outcomes[0]?.delivered).toBeUndefined();
      expect(server.requests(failing)).toHaveLength(2);
    });

    it('a 200 stream that begins with an overflow event moves on to the larger window, not the smaller', async () => {
      const overflow = recorded('openai/stream-context-overflow-event');
      const smaller = completeStream('openai');
      const larger = completeStream('anthropic');
      const alone = await kit.stream(
        [{ provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: completeStream('anthropic') }],
        {},
      );
      const streamed = await kit.stream(
        [
          { provider: 'openai', modelId: 'gpt-4o', scenario: overflow, contextWindow: 32_768 },
          { provider: 'openai', modelId: 'gpt-4o-mini', scenario: smaller, contextWindow: 16_384 },
          { provider: 'anthropic', modelId: 'claude-sonnet-4-5', scenario: larger, contextWindow: 200_000 },
        ],
        { registry: new HealthRegistry() },
      );
      expect(streamed).toEqual({ text: alone.text, thrown: undefined });
      expect(server.requests(overflow)).toHaveLength(1);
      expect(server.requests(smaller)).toHaveLength(0);
    });

    it('a refused key moves on only to another credential, with a process warning', async () => {
      const refused = recorded('openai/invalid-api-key');
      const sameKey = fresh(openaiChatCompletion('same key, never asked', 'gpt-4o-mini'));
      const otherKey = fresh(openaiChatCompletion('from another key', 'gpt-4o'));
      const warnings: Error[] = [];
      const listen = (warning: Error) => warnings.push(warning);
      process.on('warning', listen);
      try {
        const outcomes: CandidateOutcome[] = [];
        const text = await kit.generate(
          [
            {
              provider: 'openai',
              modelId: `gpt-4.1-${kit.alias}`,
              scenario: refused,
              credentialId: 'team-a',
            },
            { provider: 'openai', modelId: 'gpt-4o-mini', scenario: sameKey, credentialId: 'team-a' },
            { provider: 'openai', modelId: 'gpt-4o', scenario: otherKey, credentialId: 'team-b' },
          ],
          { registry: new HealthRegistry(), onOutcome: (outcome) => outcomes.push(outcome) },
        );
        expect(text).toBe('from another key');
        expect(
          outcomes.map((outcome) => outcome.skipped ?? outcome.report?.reason ?? outcome.status),
        ).toEqual(['auth', 'same_credential', 'succeeded']);
        await new Promise((resolve) => setImmediate(resolve));
        const said = warnings.filter(
          (warning) => (warning as Error & { code?: string }).code === 'FAULTLINE_CREDENTIAL_REJECTED',
        );
        expect(said).toHaveLength(1);
        expect(said[0]?.message).toContain(`gpt-4.1-${kit.alias} (credential "team-a")`);
        expect(said[0]?.message).not.toContain(KEY);
      } finally {
        process.off('warning', listen);
      }
      expect(server.requests(sameKey)).toHaveLength(0);
    });
  });
}

describe("ai-v6: what streamText's `text` gives through faultlineFallback", () => {
  const streamOver = (scenarios: Pick<Scenario, 'response'>[], options: { abortSignal?: AbortSignal } = {}) =>
    ai6.streamText({
      model: faultlineFallback({
        models: scenarios.map((scenario, index) =>
          createOpenAI({ baseURL: `${server.baseUrlFor(scenario)}/v1`, apiKey: KEY }).chat(`gpt-4o-${index}`),
        ),
        registry: new HealthRegistry(),
        retry: false,
      }),
      prompt: 'hi',
      maxRetries: 0,
      onError: () => undefined,
      ...options,
    });

  it("every candidate out of quota: `text` rejects with the chain's quota failure, one request each", async () => {
    const first = recorded('openai/insufficient-quota');
    const second = recorded('openai/insufficient-quota');
    const error = await rejection(() => Promise.resolve(streamOver([first, second]).text));
    expect(FallbackChainError.isInstance(error)).toBe(true);
    expect([reportOf(error).reason, reportOf(error).retryable]).toEqual(['quota', false]);
    expect((error as FallbackChainError).candidates.map((outcome) => outcome.status)).toEqual([
      'failed',
      'failed',
    ]);
    expect([server.requests(first).length, server.requests(second).length]).toEqual([1, 1]);
  });

  it('a cut after output: `text` rejects with what was delivered, never a truncated answer', async () => {
    const cut = failingStream('openai', 'cut');
    const backup = fresh(openaiChatCompletion('never asked'));
    const error = await rejection(() => Promise.resolve(streamOver([cut, backup]).text));
    expect(reportOf(error).reason).toBe('interrupted');
    expect((error as FaultlineError).delivered?.characters).toBeGreaterThan(0);
    expect(server.requests(backup)).toHaveLength(0);
  });

  it("the caller's abort ends the chain untouched: no classification, no fallback", async () => {
    const stalled = fresh({ response: { kind: 'socket', behaviour: 'never-answer' } } as Pick<
      Scenario,
      'response'
    >);
    const backup = fresh(openaiChatCompletion('never asked'));
    const controller = new AbortController();
    const result = streamOver([stalled, backup], { abortSignal: controller.signal });
    const reason = new Error('the caller left');
    // Abort once the first candidate holds the request (its server never answers).
    while (server.requests(stalled).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    const error = await rejection(() => Promise.resolve(result.text));
    expect(error).toBe(reason);
    expect(server.requests(backup)).toHaveLength(0);
  });
});

describe('faultlineFallback refuses what cannot mean anything, at the call', () => {
  const model = () =>
    createOpenAI({ baseURL: `${server.baseUrlFor(fresh(openaiChatCompletion('hi')))}/v1`, apiKey: KEY }).chat(
      'gpt-4o',
    );

  it('an unknown option key is a TypeError naming it (and the nearest known one)', () => {
    expect(() => faultlineFallback({ models: [model()], fallbakOn: {} } as never)).toThrow(
      /unknown option "fallbakOn" for faultlineFallback; did you mean "fallbackOn"\?/,
    );
    expect(() => faultlineFallback({ models: [model()], retry: { maxRetries: 2 } } as never)).toThrow(
      /unknown option "maxRetries" in "retry" for faultlineFallback/,
    );
    expect(() => faultlineFallback({ models: [{ model: model(), contextWindw: 1000 }] } as never)).toThrow(
      /unknown option "contextWindw" in "models\[0\]" for faultlineFallback; did you mean "contextWindow"\?/,
    );
  });

  it('a bad value is a TypeError naming the option', () => {
    expect(() => faultlineFallback({ models: [] })).toThrow(TypeError);
    expect(() => faultlineFallback({ models: [{ model: model(), contextWindow: -1 }] })).toThrow(
      /models\[0\]\.contextWindow must be a positive number/,
    );
    expect(() =>
      faultlineFallback({ models: [{ model: model(), countTokens: 42 as unknown as () => number }] }),
    ).toThrow(/models\[0\]\.countTokens must be a function/);
    expect(() => faultlineFallback({ models: [model()], fallbackOn: { invalid_request: true } })).toThrow(
      /fallbackOn\.invalid_request cannot be turned on/,
    );
    expect(() => faultlineFallback({ models: [model()], retry: { maxAttempts: 0 } })).toThrow(
      /retry\.maxAttempts must be a whole number/,
    );
    const v2 = createOpenAIV2({ apiKey: KEY }).chat('gpt-4o');
    expect(() => faultlineFallback({ models: [model(), v2] as never })).toThrow(
      /models\[1\] must be a model of the same AI SDK major as models\[0\]/,
    );
  });
});
