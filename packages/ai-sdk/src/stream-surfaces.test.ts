// biome-ignore-all lint/suspicious/noThenProperty: the scenario format's field
import { type ErrorReport, FaultlineError } from '@faultline/render';
import {
  expectedFor,
  type LoopbackServer,
  loadScenario,
  type ScenarioResponse,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import * as ai5 from 'ai-v5';
import * as ai6 from 'ai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAiSdkError, guardAiSdkStream } from './classify-ai-sdk-error.ts';
import { faultlineMiddleware } from './middleware.ts';
import {
  completeStream,
  ERROR_EVENT_SCENARIOS,
  failingStream,
  MODELS_V5,
  MODELS_V6,
  PROVIDERS,
  type Provider,
  STREAM_FAILURES,
  type StreamFailure,
} from './test-support.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

/** What a surface of `streamText` gave: the text it delivered, and what it threw (if it did). */
interface Outcome {
  readonly text: string;
  readonly error?: unknown;
}

/** The four ways an app reads `streamText`, for one major's result. */
interface StreamResultLike {
  readonly text: PromiseLike<string>;
  readonly textStream: AsyncIterable<string>;
  readonly fullStream: AsyncIterable<{ type: string; text?: string }>;
  toUIMessageStreamResponse(options: { onError: (error: unknown) => string }): Response;
}

const SURFACES = {
  async text(result: StreamResultLike): Promise<Outcome> {
    try {
      return { text: await result.text };
    } catch (error) {
      return { text: '', error };
    }
  },
  async textStream(result: StreamResultLike): Promise<Outcome> {
    let text = '';
    try {
      for await (const delta of result.textStream) text += delta;
      return { text };
    } catch (error) {
      return { text, error };
    }
  },
  async fullStream(result: StreamResultLike): Promise<Outcome> {
    let text = '';
    let errorPart: { error?: unknown } | undefined;
    try {
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') text += part.text ?? '';
        // The part where the AI SDK puts a failure; the stream must then fail with the same error.
        if (part.type === 'error') errorPart = part as { error?: unknown };
      }
    } catch (error) {
      if (errorPart !== undefined)
        expect(error, "the stream fails with its error part's error").toBe(errorPart.error);
      return { text, error };
    }
    if (errorPart !== undefined)
      return { text, error: new Error('the stream ended normally after an error part') };
    return { text };
  },
  /**
   * The UI message stream a route handler returns: the failure reaches its `onError` (whose answer
   * is the error chunk the client gets), then the body fails with it, as on a cut without faultline.
   */
  async uiMessageStream(result: StreamResultLike): Promise<Outcome> {
    const errors: unknown[] = [];
    const response = result.toUIMessageStreamResponse({
      onError: (error) => {
        errors.push(error);
        return FaultlineError.isInstance(error) ? error.toErrorReport().reason : 'not classified';
      },
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let body = '';
    let thrown: unknown;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        body += value;
      }
    } catch (error) {
      thrown = error;
    }
    const text = [...body.matchAll(/"type":"text-delta","id":"[^"]*","delta":"([^"]*)"/g)]
      .map((match) => match[1])
      .join('');
    if (errors.length === 0 && thrown === undefined) return { text };
    expect(errors).toHaveLength(1);
    expect(thrown, 'the body fails with the error onError saw').toBe(errors[0]);
    const errorChunk = /"type":"error","errorText":"([^"]*)"/.exec(body);
    expect(errorChunk?.[1]).toBe(
      FaultlineError.isInstance(errors[0]) ? errors[0].toErrorReport().reason : 'not classified',
    );
    return { text, error: errors[0] };
  },
} as const;
type Surface = keyof typeof SURFACES;

const RUNNERS = {
  'ai-v6': (provider: Provider, baseUrl: string): StreamResultLike =>
    ai6.streamText({
      model: ai6.wrapLanguageModel({
        model: MODELS_V6[provider](baseUrl),
        middleware: faultlineMiddleware(),
      }),
      prompt: 'Say hello',
      maxRetries: 0,
      onError: () => undefined,
    }),
  'ai-v5': (provider: Provider, baseUrl: string): StreamResultLike =>
    ai5.streamText({
      model: ai5.wrapLanguageModel({
        model: MODELS_V5[provider](baseUrl),
        middleware: faultlineMiddleware(),
      }),
      prompt: 'Say hello',
      maxRetries: 0,
      onError: () => undefined,
    }),
} as const;

/** The reason each failure must get: the scenario's for an error event, else interrupted. */
function reasonOf(provider: Provider, failure: StreamFailure, alias: string): string {
  if (failure !== 'error-event') return 'interrupted';
  return expectedFor(loadScenario(ERROR_EVENT_SCENARIOS[provider]), alias).reason;
}

/**
 * ai 5 settles `text` only when its model stream ends: a failing stream leaves it pending, with or
 * without the middleware (ai 6 rejects it). The other surfaces fail on both majors.
 */
const PENDING_ON_AI5: readonly Surface[] = ['text'];

for (const [alias, run] of Object.entries(RUNNERS)) {
  describe(`${alias}: streamText through faultlineMiddleware never resolves a failed stream`, () => {
    for (const provider of PROVIDERS) {
      for (const surface of Object.keys(SURFACES) as Surface[]) {
        it(`${provider} ${surface}: a whole answer passes as the plain AI SDK gives it`, async () => {
          const baseUrl = server.baseUrlFor(completeStream(provider));
          const outcome = await SURFACES[surface](run(provider, baseUrl));
          expect(outcome.error, String(outcome.error)).toBeUndefined();
          expect(outcome.text.length).toBeGreaterThan(0);
        });

        for (const failure of STREAM_FAILURES) {
          if (alias === 'ai-v5' && PENDING_ON_AI5.includes(surface)) continue;
          const reason = reasonOf(provider, failure, alias);
          it(`${provider} ${surface}: ${failure} fails with the classified error (${reason}), delivered attached`, async () => {
            const baseUrl = server.baseUrlFor(failingStream(provider, failure));
            const outcome = await SURFACES[surface](run(provider, baseUrl));
            expect(FaultlineError.isInstance(outcome.error), `not classified: ${String(outcome.error)}`).toBe(
              true,
            );
            const report: ErrorReport = (outcome.error as FaultlineError).toErrorReport();
            expect(report.reason).toBe(reason);
            expect(report.provider).toBe(provider);
            // What the guard counted is what the app received before the failure.
            if (surface !== 'text') expect(report.delivered?.characters).toBe(outcome.text.length);
            if (failure !== 'error-event' || outcome.text.length > 0)
              expect(report.delivered?.characters).toBeGreaterThan(0);
          });
        }
      }
    }
  });
}

describe('a spent quota on streamText is quota, never an interruption to retry', () => {
  const quota = () => ({ response: structuredClone(loadScenario('openai/insufficient-quota').response) });
  const prompt = 'Say hello';

  it('ai-v6 through faultlineMiddleware: `text` rejects with the classified quota failure, one request', async () => {
    const scenario = quota();
    const result = ai6.streamText({
      model: ai6.wrapLanguageModel({
        model: MODELS_V6.openai(server.baseUrlFor(scenario)),
        middleware: faultlineMiddleware(),
      }),
      prompt,
      maxRetries: 0,
      onError: () => undefined,
    });
    const outcome = await SURFACES.text(result);
    expect(FaultlineError.isInstance(outcome.error), String(outcome.error)).toBe(true);
    expect((outcome.error as FaultlineError).toErrorReport()).toMatchObject({
      reason: 'quota',
      retryable: false,
    });
    expect(server.requests(scenario)).toHaveLength(1);
  });

  for (const [alias, streamText] of [
    [
      'ai-v6',
      (baseUrl: string) =>
        ai6.streamText({ model: MODELS_V6.openai(baseUrl), prompt, maxRetries: 0, onError: () => undefined }),
    ],
    [
      'ai-v5',
      (baseUrl: string) =>
        ai5.streamText({ model: MODELS_V5.openai(baseUrl), prompt, maxRetries: 0, onError: () => undefined }),
    ],
  ] as const) {
    it(`${alias} without the middleware: the bare NoOutputGeneratedError of \`text\` is never retried; the stream's error part is quota`, async () => {
      const outcome = await SURFACES.text(streamText(server.baseUrlFor(quota())));
      expect((outcome.error as Error).name).toBe('AI_NoOutputGeneratedError');
      const report = classifyAiSdkError(outcome.error, { provider: 'openai.chat' }).toErrorReport();
      expect(report.reason).not.toBe('interrupted');
      expect(report.retryable).toBe(false);
      expect(report.retryOnlyIfIdempotent ?? false).toBe(false);
      let thrown: unknown;
      try {
        for await (const _part of guardAiSdkStream(streamText(server.baseUrlFor(quota())).fullStream, {
          provider: 'openai.chat',
        })) {
          // drain
        }
      } catch (error) {
        thrown = error;
      }
      expect(FaultlineError.isInstance(thrown) && thrown.toErrorReport().reason).toBe('quota');
    });
  }
});

describe('a Bedrock exception frame, whose type @ai-sdk/amazon-bedrock drops from the error part, is read by its type', () => {
  const frame = (headers: Record<string, string>, payload: object) => ({
    headers,
    payload: JSON.stringify(payload),
  });
  const event = (type: string, payload: object) =>
    frame({ ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' }, payload);
  /** Messages without any word a rule reads: only the exception's type says what failed. */
  const EXCEPTIONS = [
    [
      'validationException',
      'Malformed input request, please reformat your input and try again.',
      'invalid_request',
    ],
    ['serviceUnavailableException', 'Bedrock is unable to process your request.', 'overloaded'],
    [
      'internalServerException',
      'The system encountered an unexpected error during processing.',
      'server_error',
    ],
  ] as const;
  const streamOf = (exception: string, message: string) => ({
    response: {
      kind: 'aws-event-stream',
      messages: [
        event('messageStart', { role: 'assistant' }),
        event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } }),
        frame(
          { ':message-type': 'exception', ':exception-type': exception, ':content-type': 'application/json' },
          { message },
        ),
      ],
      then: 'end',
    } as ScenarioResponse,
  });

  for (const [exception, message, reason] of EXCEPTIONS) {
    it(`${exception}: ${reason}, through the middleware on ai 6 and ai 5`, async () => {
      for (const run of [RUNNERS['ai-v6'], RUNNERS['ai-v5']]) {
        const outcome = await SURFACES.fullStream(
          run('bedrock', server.baseUrlFor(streamOf(exception, message))),
        );
        expect(FaultlineError.isInstance(outcome.error), String(outcome.error)).toBe(true);
        expect((outcome.error as FaultlineError).toErrorReport()).toMatchObject({
          reason,
          provider: 'bedrock',
        });
      }
    });
  }

  it('guardAiSdkStream reads it from the raw chunks when the stream carries them (includeRawChunks)', async () => {
    const [exception, message, reason] = EXCEPTIONS[0];
    const result = ai6.streamText({
      model: MODELS_V6.bedrock(server.baseUrlFor(streamOf(exception, message))),
      prompt: 'Say hello',
      maxRetries: 0,
      includeRawChunks: true,
      onError: () => undefined,
    });
    let thrown: unknown;
    try {
      for await (const _part of guardAiSdkStream(result.fullStream, { provider: 'amazon-bedrock' })) {
        // drain
      }
    } catch (error) {
      thrown = error;
    }
    expect(FaultlineError.isInstance(thrown) && thrown.toErrorReport().reason).toBe(reason);
  });
});

describe('an error event that opens an Anthropic stream: its type decides, not the status @ai-sdk/anthropic makes up for it', () => {
  const opening = (type: string) => ({
    response: {
      kind: 'sse',
      events: [
        {
          event: 'error',
          data: JSON.stringify({ type: 'error', error: { type, message: 'Something happened.' } }),
        },
      ],
      then: 'end',
    } as ScenarioResponse,
  });
  for (const [type, reason] of [
    ['rate_limit_error', 'rate_limit'],
    ['invalid_request_error', 'invalid_request'],
    ['overloaded_error', 'overloaded'],
  ] as const) {
    it(`${type}: ${reason} (the package's APICallError says 500 or 529)`, async () => {
      for (const run of [RUNNERS['ai-v6'], RUNNERS['ai-v5']]) {
        // A failure before the first part: ai 5 reports it as the stream's error part only.
        let failure: unknown;
        try {
          for await (const part of run('anthropic', server.baseUrlFor(opening(type))).fullStream)
            if (part.type === 'error') failure ??= (part as { error?: unknown }).error;
        } catch (error) {
          failure ??= error;
        }
        if (!FaultlineError.isInstance(failure)) throw new Error(`not classified: ${String(failure)}`);
        expect(failure.cause).toMatchObject({ name: 'AI_APICallError' });
        expect(failure.toErrorReport()).toMatchObject({ reason, provider: 'anthropic' });
      }
    });
  }
});
