// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
import { FaultlineError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenarios,
  openaiChatCompletion,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { HumanMessage } from '@langchain/core/messages';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardLangChainStream } from './guard-langchain-stream.ts';
import {
  faultlineCallbackHandler,
  faultlineOnFailedAttempt,
  faultlineRetryOn,
  invokeWithFallbacks,
  shouldFallBack,
} from './policies.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

/** A fresh registration of a scenario (its own token, so its request count is its own). */
const fresh = (id: string): Pick<Scenario, 'response'> => {
  const provider = id.split('/')[0] as string;
  const found = loadScenarios(provider).find((item) => item.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return { response: structuredClone(found.response) };
};

const chat = (scenario: Pick<Scenario, 'response'>) =>
  new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test-faultline-canary-0123456789abcdef',
    configuration: { baseURL: `${server.baseUrlFor(scenario)}/v1` },
    maxRetries: 0,
  });

async function thrown(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('resolved without throwing');
}

describe('faultlineOnFailedAttempt with runnable.withRetry', () => {
  it('lets LangChain retry a transient failure', async () => {
    const scenario = fresh('openai/server-error-json');
    const model = chat(scenario).withRetry({
      stopAfterAttempt: 2,
      onFailedAttempt: faultlineOnFailedAttempt(),
    });
    await thrown(() => model.invoke('hi'));
    expect(server.requests(scenario)).toHaveLength(2);
  });

  it('stops at once on a failure a retry cannot help, throwing it classified', async () => {
    const scenario = fresh('openai/insufficient-quota');
    const model = chat(scenario).withRetry({
      stopAfterAttempt: 3,
      onFailedAttempt: faultlineOnFailedAttempt(),
    });
    const error = await thrown(() => model.invoke('hi'));
    expect(server.requests(scenario)).toHaveLength(1);
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect((error as FaultlineError).toErrorReport()).toMatchObject({ reason: 'quota', retryable: false });
  });
});

describe('what leaves withRetry and a fallback chain once they run out: classified, its cause the SDK error', () => {
  it('withRetry: the last failed attempt leaves as a FaultlineError, after exactly stopAfterAttempt requests', async () => {
    const scenario = fresh('openai/server-error-json');
    const model = chat(scenario).withRetry({
      stopAfterAttempt: 2,
      onFailedAttempt: faultlineOnFailedAttempt({ stopAfterAttempt: 2 }),
    });
    const error = await thrown(() => model.invoke([new HumanMessage('hi')]));
    expect(server.requests(scenario)).toHaveLength(2);
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect((error as FaultlineError).toErrorReport()).toMatchObject({
      reason: 'server_error',
      retryable: true,
    });
    // The openai SDK's own error, as LangChain handed it on.
    expect((error as FaultlineError).cause).toMatchObject({ status: 500 });
    expect(FaultlineError.isInstance((error as FaultlineError).cause)).toBe(false);
  });

  it('withRetry: each call counts its own attempts (a string input, two calls in turn)', async () => {
    const scenario = fresh('openai/server-error-json');
    const model = chat(scenario).withRetry({
      stopAfterAttempt: 2,
      onFailedAttempt: faultlineOnFailedAttempt({ stopAfterAttempt: 2 }),
    });
    for (const _call of [1, 2])
      expect(FaultlineError.isInstance(await thrown(() => model.invoke('hi')))).toBe(true);
    expect(server.requests(scenario)).toHaveLength(4);
  });

  it('faultlineOnFailedAttempt: a stopAfterAttempt that is not a whole number ≥ 1 is a TypeError at the call', () => {
    expect(() => faultlineOnFailedAttempt({ stopAfterAttempt: 0 })).toThrow(TypeError);
    expect(() => faultlineOnFailedAttempt({ stopAfterAttempt: 1.5 })).toThrow(TypeError);
  });

  it('invokeWithFallbacks: moves on by classification and answers from the next model', async () => {
    const spent = fresh('openai/insufficient-quota');
    const healthy = { response: structuredClone(openaiChatCompletion('Hello from the fallback').response) };
    const answer = await invokeWithFallbacks([chat(spent), chat(healthy)], 'hi');
    expect(answer.content).toBe('Hello from the fallback');
    expect(server.requests(spent)).toHaveLength(1);
  });

  it('invokeWithFallbacks: every candidate failing leaves the last failure classified; a failure that must not move on stops the chain', async () => {
    const first = fresh('openai/overloaded-503');
    const second = fresh('openai/server-error-json');
    const error = await thrown(() => invokeWithFallbacks([chat(first), chat(second)], 'hi'));
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect((error as FaultlineError).toErrorReport().reason).toBe('server_error');
    expect((error as FaultlineError).cause).toMatchObject({ status: 500 });

    const invalid = fresh('openai/invalid-api-key');
    const untouched = fresh('openai/server-error-json');
    const stopped = await thrown(() => invokeWithFallbacks([chat(invalid), chat(untouched)], 'hi'));
    expect((stopped as FaultlineError).toErrorReport().reason).toBe('auth');
    expect(server.requests(untouched)).toHaveLength(0);
  });
});

/** Aborts `controller` (with `reason`) once the server has the scenario's request, not before it is sent. */
function abortOnceReceived(
  scenario: Pick<Scenario, 'response'>,
  controller: AbortController,
  reason?: unknown,
) {
  const poll = setInterval(() => {
    if (server.requests(scenario).length === 0) return;
    clearInterval(poll);
    controller.abort(reason);
  }, 10);
}

describe("invokeWithFallbacks with the caller's signal", () => {
  it('gives each runnable the signal; the abort leaves untouched and moves on to no other runnable', async () => {
    const silent = fresh('openai/never-answer');
    const backup = { response: structuredClone(openaiChatCompletion('never asked').response) };
    const controller = new AbortController();
    const reason = new Error('the user closed the page');
    abortOnceReceived(silent, controller, reason);
    const error = await thrown(() =>
      invokeWithFallbacks([chat(silent), chat(backup)], 'hi', { signal: controller.signal }),
    );
    expect(FaultlineError.isInstance(error), `classified: ${String(error)}`).toBe(false);
    // ChatOpenAI honours the signal: what it threw (openai's abort error, or the reason) is what leaves.
    expect(error === reason || (error as Error).name === 'AbortError').toBe(true);
    expect(server.requests(silent)).toHaveLength(1);
    expect(server.requests(backup)).toHaveLength(0);
  });

  it("ends within a second of the abort when an integration drops the signal (ChatGoogleGenerativeAI), with the signal's reason", async () => {
    const silent = fresh('google-genai/gemini-never-answer');
    const model = new ChatGoogleGenerativeAI({
      model: 'gemini-2.5-flash',
      apiKey: 'test-key-faultline-canary',
      baseUrl: server.baseUrlFor(silent),
      maxRetries: 0,
    });
    const controller = new AbortController();
    abortOnceReceived(silent, controller);
    const error = await thrown(() => invokeWithFallbacks([model], 'hi', { signal: controller.signal }));
    expect(error).toBe(controller.signal.reason);
    expect(server.requests(silent)).toHaveLength(1);
  });

  it('a signal that is not an AbortSignal, or an unknown key, is a TypeError at the call', async () => {
    const untouched = fresh('openai/server-error-json');
    await expect(
      invokeWithFallbacks([chat(untouched)], 'hi', { signal: 'stop' as unknown as AbortSignal }),
    ).rejects.toThrow('invokeWithFallbacks: signal must be an AbortSignal');
    await expect(
      invokeWithFallbacks([chat(untouched)], 'hi', { abortSignal: AbortSignal.timeout(10) } as object),
    ).rejects.toThrow('unknown option "abortSignal" for invokeWithFallbacks; did you mean "signal"?');
    expect(server.requests(untouched)).toHaveLength(0);
  });
});

describe('faultlineRetryOn as a LangGraph retry policy', () => {
  const State = Annotation.Root({ answer: Annotation<string> });

  const graphFor = (scenario: Pick<Scenario, 'response'>) =>
    new StateGraph(State)
      .addNode(
        'call_model',
        async () => {
          const message = await chat(scenario).invoke('hi');
          return { answer: String(message.content) };
        },
        {
          retryPolicy: {
            maxAttempts: 3,
            initialInterval: 0.001,
            jitter: false,
            retryOn: faultlineRetryOn(),
            logWarning: false,
          },
        },
      )
      .addEdge(START, 'call_model')
      .addEdge('call_model', END)
      .compile();

  it('retries a transient failure', async () => {
    const scenario = fresh('openai/overloaded-503');
    await thrown(() => graphFor(scenario).invoke({ answer: '' }));
    expect(server.requests(scenario)).toHaveLength(3);
  });

  it('never retries an auth failure', async () => {
    const scenario = fresh('openai/invalid-api-key');
    await thrown(() => graphFor(scenario).invoke({ answer: '' }));
    expect(server.requests(scenario)).toHaveLength(1);
  });
});

describe('shouldFallBack', () => {
  // The taxonomy's fallback column, read through the real chat model's errors.
  it.each([
    ['openai/insufficient-quota', true],
    ['openai/deepseek-insufficient-balance', true],
    ['openai/model-not-found', true],
    ['openai/overloaded-503', true],
    ['openai/server-error-json', true],
    // Only to a model with another key or a larger window: the predicate needs the caller's word.
    ['openai/invalid-api-key', false],
    ['openai/organization-disabled', false],
    ['openai/context-length-exceeded', false],
    // Opt-in.
    ['openai/azure-content-filter', false],
    // Never: no other model can fix it.
    ['openai/together-invalid-request-422', false],
    ['openai/not-found-html', false],
  ])('%s → %s', async (id, expected) => {
    const error = await thrown(() => chat(fresh(id)).invoke('hi'));
    expect(shouldFallBack(error)).toBe(expected);
  });

  it('fallbackOn turns the opt-in and conditional rows on, any row off, and never a row that cannot move on', async () => {
    const overflow = await thrown(() => chat(fresh('openai/context-length-exceeded')).invoke('hi'));
    expect(shouldFallBack(overflow, { fallbackOn: { context_overflow: true } })).toBe(true);
    const rejected = await thrown(() => chat(fresh('openai/invalid-api-key')).invoke('hi'));
    expect(shouldFallBack(rejected, { fallbackOn: { auth: true } })).toBe(true);
    const blocked = await thrown(() => chat(fresh('openai/azure-content-filter')).invoke('hi'));
    expect(shouldFallBack(blocked, { fallbackOn: { content_policy: true } })).toBe(true);
    const quota = await thrown(() => chat(fresh('openai/insufficient-quota')).invoke('hi'));
    expect(shouldFallBack(quota, { fallbackOn: { quota: false } })).toBe(false);
    const invalid = await thrown(() => chat(fresh('openai/together-invalid-request-422')).invoke('hi'));
    expect(shouldFallBack(invalid, { fallbackOn: { invalid_request: true } })).toBe(false);
  });

  it('never after output was delivered, unless fallbackAfterOutput', async () => {
    const cut = await thrown(async () => {
      for await (const _chunk of guardLangChainStream(chat(fresh('openai/stream-cut')).stream('hi'), {
        provider: 'openai',
      }));
    });
    expect(FaultlineError.isInstance(cut)).toBe(true);
    expect((cut as FaultlineError).toErrorReport().delivered?.chunks).toBeGreaterThan(0);
    expect(shouldFallBack(cut)).toBe(false);
    expect(shouldFallBack(cut, { fallbackAfterOutput: true })).toBe(true);
  });

  it("never falls back after the caller's abort", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await thrown(() =>
      chat(fresh('openai/never-answer')).invoke('hi', { signal: controller.signal }),
    );
    expect(shouldFallBack(error, { signal: controller.signal })).toBe(false);
  });
});

describe('faultlineCallbackHandler', () => {
  it('records each failure of a run once, classified, and never throws into LangChain', async () => {
    const seen: string[] = [];
    const handler = faultlineCallbackHandler({
      onFailure: (report) => {
        seen.push(report.reason);
        throw new Error('a listener that throws');
      },
    });
    const scenario = fresh('openai/rate-limit-retry-after-ms');
    const error = await thrown(() => chat(scenario).invoke('hi', { callbacks: [handler] }));
    expect(error).toBeDefined();
    expect(handler.failures).toHaveLength(1);
    expect(handler.failures[0]).toMatchObject({ reason: 'rate_limit', retryable: true, provider: 'openai' });
    expect(seen).toEqual(['rate_limit']);
    expect(JSON.stringify(handler.failures)).not.toContain('sk-test-faultline-canary');
  });
});
