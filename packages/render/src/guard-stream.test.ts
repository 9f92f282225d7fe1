import { createServer } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyError, FaultlineError, guardStream } from './index.ts';
import { toolCallCharacters } from './toolkit.ts';

interface Chunk {
  type: string;
  text?: string;
}

/** A source iterator whose behaviour each test scripts, recording return() calls. */
function scripted<T>(steps: Array<T | Error | 'hang' | 'end'>) {
  let index = 0;
  const source = {
    returned: 0,
    [Symbol.asyncIterator]() {
      return this;
    },
    next(): Promise<IteratorResult<T>> {
      const step = steps[index++];
      if (step === undefined || step === 'end') return Promise.resolve({ done: true, value: undefined });
      if (step === 'hang') return new Promise(() => {});
      if (step instanceof Error) return Promise.reject(step);
      return Promise.resolve({ done: false, value: step as T });
    },
    return(): Promise<IteratorResult<T>> {
      source.returned += 1;
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  return source;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<{ chunks: T[]; error?: unknown }> {
  const chunks: T[] = [];
  try {
    for await (const chunk of iterable) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks };
}

const text = (value: string): Chunk => ({ type: 'delta', text: value });
const stop: Chunk = { type: 'message_stop' };
const readChunk = (chunk: Chunk) => ({
  characters: chunk.text?.length ?? 0,
  terminal: chunk.type === 'message_stop',
});
const options = { requireTerminal: true, readChunk };

afterEach(() => {
  // Spies on the timer functions first, then the fake clock: a spy made while the clock was fake
  // remembers the fake setTimeout as its original, and vitest restores every spy again after the
  // file (`restoreAllMocks`, even one a test already restored), which would put a fake clock back
  // under every file that runs after this one in the same worker. Restored here, before the clock
  // is uninstalled, nothing is left for that later restore.
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('guardStream', () => {
  it('passes chunks through untouched', async () => {
    const chunks = [text('Hel'), text('lo'), stop];
    const { chunks: seen, error } = await collect(guardStream(scripted(chunks), options));
    expect(error).toBeUndefined();
    expect(seen).toHaveLength(3);
    seen.forEach((chunk, index) => {
      expect(chunk).toBe(chunks[index]);
    });
  });
  it('classifies an error thrown while iterating as a mid-stream drop, with delivered', async () => {
    const drop = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    const { chunks, error } = await collect(
      guardStream(scripted([text('abc'), text('de'), drop]), {
        ...options,
        model: 'm',
        family: 'completion',
      }),
    );
    expect(chunks).toHaveLength(2);
    expect(FaultlineError.isInstance(error)).toBe(true);
    const faultline = error as FaultlineError;
    expect(faultline.cause).toBe(drop);
    expect(faultline.errorType).toBe('CompletionError');
    const report = faultline.toErrorReport();
    expect(report.reason).toBe('interrupted');
    expect(report.providerMetadata.networkPhase).toBe('stream');
    expect(report.delivered).toEqual({ chunks: 2, characters: 5 });
    expect(report.model).toBe('m');
  });
  it('registered extractors see the streaming context', async () => {
    let streamingSeen: unknown;
    const extractor = {
      provider: 'x',
      extract: (_error: unknown, context?: unknown) => {
        streamingSeen = (context as { streaming?: boolean }).streaming;
        return undefined;
      },
    };
    await collect(guardStream(scripted([new Error('x')]), { extractors: [extractor] }));
    expect(streamingSeen).toBe(true);
  });
  it('an idle source is abandoned within 1.25× the timeout: return() is called and an interrupted timeout is thrown', async () => {
    vi.useFakeTimers();
    const source = scripted<Chunk>([text('abcd'), 'hang']);
    const result = collect(guardStream(source, { ...options, idleTimeoutMs: 5000 }));
    await vi.advanceTimersByTimeAsync(4999);
    expect(source.returned).toBe(0);
    await vi.advanceTimersByTimeAsync(1251);
    const { chunks, error } = await result;
    expect(chunks).toHaveLength(1);
    expect(source.returned).toBe(1);
    const report = (error as FaultlineError).toErrorReport();
    expect(report.reason).toBe('interrupted');
    expect(report.providerMetadata).toMatchObject({ origin: 'timeout', networkPhase: 'stream' });
    expect(report.delivered).toEqual({ chunks: 1, characters: 4 });
    expect(vi.getTimerCount()).toBe(0);
  });
  it('defaults to a 60 s idle timeout, reset on each chunk', async () => {
    vi.useFakeTimers();
    let index = 0;
    const source: AsyncIterable<Chunk> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise<IteratorResult<Chunk>>((resolve) => {
            index += 1;
            const value = index <= 3 ? text('x') : stop;
            setTimeout(() => resolve({ done: index > 4, value }), 50_000);
          }),
      }),
    };
    const result = collect(guardStream(source, options));
    await vi.advanceTimersByTimeAsync(250_000);
    const { chunks, error } = await result;
    expect(error).toBeUndefined();
    expect(chunks).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);

    const hung = scripted<Chunk>(['hang']);
    const second = collect(guardStream(hung));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(hung.returned).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(((await second).error as FaultlineError).classification.reason).toBe('interrupted');
  });
  it('ending without the terminal event is interrupted, with delivered', async () => {
    const { error } = await collect(guardStream(scripted([text('abc'), 'end']), options));
    const faultline = error as FaultlineError;
    expect(faultline.message).toBe('stream ended without its terminal event');
    const report = faultline.toErrorReport();
    expect(report.reason).toBe('interrupted');
    expect(report.providerMetadata).toMatchObject({ origin: 'network', networkPhase: 'stream' });
    expect(report.delivered).toEqual({ chunks: 1, characters: 3 });
  });
  it('requireTerminal false, or no isTerminal, lets a stream end quietly', async () => {
    expect(
      (await collect(guardStream(scripted([text('a'), 'end']), { ...options, requireTerminal: false })))
        .error,
    ).toBeUndefined();
    expect((await collect(guardStream(scripted([text('a'), 'end'])))).error).toBeUndefined();
  });
  it('a readChunk failure is thrown classified; the source is returned', async () => {
    const source = scripted<Chunk>([text('ab'), { type: 'error' }, stop]);
    const { chunks, error } = await collect(
      guardStream(source, {
        ...options,
        readChunk: (chunk) => ({
          ...readChunk(chunk),
          failure:
            chunk.type === 'error'
              ? {
                  provider: 'anthropic',
                  origin: 'stream_event',
                  message: 'Overloaded',
                  providerType: 'overloaded_error',
                }
              : undefined,
        }),
      }),
    );
    expect(chunks).toHaveLength(1);
    const report = (error as FaultlineError).toErrorReport();
    expect(report.reason).toBe('overloaded');
    expect(report.delivered).toEqual({ chunks: 1, characters: 2 });
    expect(source.returned).toBe(1);
  });
  it('a FaultlineError from the source keeps its type and classification and gains delivered', async () => {
    const inner = classifyError(new Error('x'), {
      family: 'completion',
      extractors: [
        {
          provider: 'p',
          extract: () => ({ provider: 'p', origin: 'stream_event', message: 'prompt is too long' }),
        },
      ],
    });
    const { error } = await collect(guardStream(scripted<Chunk>([text('abc'), inner]), options));
    const faultline = error as FaultlineError;
    expect(faultline.errorType).toBe('CompletionError');
    expect(faultline.cause).toBe(inner);
    expect(faultline.toErrorReport()).toMatchObject({
      reason: 'context_overflow',
      delivered: { chunks: 1, characters: 3 },
    });
  });
  it("the caller's abort while a pull is pending: the source's AbortError is re-thrown untouched", async () => {
    const controller = new AbortController();
    const sdkAbort = Object.assign(new Error('Request was aborted.'), { name: 'AbortError' });
    const source: AsyncIterable<Chunk> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise<IteratorResult<Chunk>>((_resolve, reject) => {
            controller.signal.addEventListener('abort', () => reject(sdkAbort), { once: true });
          }),
      }),
    };
    const pending = guardStream(source, { ...options, signal: controller.signal })
      [Symbol.asyncIterator]()
      .next();
    controller.abort();
    await expect(pending).rejects.toBe(sdkAbort);
  });
  it("an abort between pulls, a source that ignores it: no further chunk, the signal's reason", async () => {
    const controller = new AbortController();
    const source = scripted<Chunk>([text('a'), text('b'), stop]);
    const iterator = guardStream(source, { ...options, signal: controller.signal })[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toBe(controller.signal.reason);
    expect(source.returned).toBe(1);
  });
  it("the caller's abort: a source that ends silently gives the signal's reason", async () => {
    const controller = new AbortController();
    const source: AsyncIterable<Chunk> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise<IteratorResult<Chunk>>((resolve) => {
            controller.signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), {
              once: true,
            });
          }),
      }),
    };
    const pending = guardStream(source, { ...options, signal: controller.signal })
      [Symbol.asyncIterator]()
      .next();
    controller.abort();
    await expect(pending).rejects.toBe(controller.signal.reason);
  });
  it("an abort between pulls, a source that honours it: the source's own abort error, untouched", async () => {
    const controller = new AbortController();
    const sdkAbort = Object.assign(new Error('Request was aborted.'), { name: 'APIUserAbortError' });
    let pulls = 0;
    const source: AsyncIterable<Chunk> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          pulls += 1;
          if (controller.signal.aborted) return Promise.reject(sdkAbort);
          return Promise.resolve({ done: false, value: text('a') });
        },
      }),
    };
    const iterator = guardStream(source, { ...options, signal: controller.signal })[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toBe(sdkAbort);
    expect(pulls).toBe(2);
  });
  it("the caller's abort: a source that ends silently gives the signal's reason", async () => {
    const controller = new AbortController();
    const source = scripted<Chunk>([text('a'), 'end']);
    const iterator = guardStream(source, { ...options, signal: controller.signal })[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toBe(controller.signal.reason);
  });
  it('a consumer that breaks early returns the source', async () => {
    const source = scripted<Chunk>([text('a'), text('b'), stop]);
    for await (const _chunk of guardStream(source, options)) break;
    expect(source.returned).toBe(1);
  });
  it('a readChunk that throws, returns nothing, or gives a reading whose fields throw reads as an ordinary chunk', async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('bad');
        },
      },
    );
    const { chunks, error } = await collect(
      guardStream(scripted([text('a'), text('bc'), text('def'), stop]), {
        requireTerminal: true,
        readChunk: (chunk: Chunk) => {
          if (chunk.text === 'a') throw new Error('bad');
          if (chunk.text === 'bc') return undefined;
          if (chunk.text === 'def') return hostile as ReturnType<typeof readChunk>;
          return readChunk(chunk);
        },
      }),
    );
    expect(error).toBeUndefined();
    expect(chunks).toHaveLength(4);
  });
  it('a real undici body cut mid-stream is interrupted, phase stream', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"type":"delta","text":"Hello"}\n\n');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      const body = response.body as unknown as AsyncIterable<Uint8Array>;
      const { chunks, error } = await collect(
        guardStream(body, { readChunk: (chunk) => ({ characters: chunk.byteLength, terminal: false }) }),
      );
      expect(chunks.length).toBeGreaterThan(0);
      const report = (error as FaultlineError).toErrorReport();
      expect(report.reason).toBe('interrupted');
      expect(report.providerMetadata.networkPhase).toBe('stream');
      expect(report.delivered?.chunks).toBe(chunks.length);
    } finally {
      server.close();
    }
  });
});

/** A stream helper in the SDKs' manner: iterable, with a `finalMessage()` that resolves once it ended. */
function helperOver(steps: Array<Chunk | Error | 'hang' | 'end'>, final: () => Promise<string>) {
  const source = scripted(steps);
  let finalCalls = 0;
  class Helper {
    [Symbol.asyncIterator]() {
      return source;
    }
    finalMessage(): Promise<string> {
      finalCalls += 1;
      return final();
    }
    notAResult(): string {
      return 'left alone';
    }
  }
  return { helper: new Helper(), source, finalCalls: () => finalCalls };
}

describe("guardStream: the source's result methods", () => {
  it('offers finalMessage() and drains through the guard when nobody iterates', async () => {
    const { helper, source } = helperOver([text('Hel'), text('lo'), stop], async () => 'Hello');
    const guarded = guardStream(helper, options);
    expect(typeof guarded.finalMessage).toBe('function');
    expect((guarded as unknown as Record<string, unknown>).notAResult).toBeUndefined();
    await expect(guarded.finalMessage()).resolves.toBe('Hello');
    expect(source.returned).toBe(0);
  });

  it('a stalled source rejects finalMessage() with the idle interruption, never calling it', async () => {
    const { helper, finalCalls } = helperOver([text('Hel'), 'hang'], () => new Promise(() => {}));
    const error = await guardStream(helper, { ...options, idleTimeoutMs: 20 })
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect((error as FaultlineError).classification.reason).toBe('interrupted');
    expect((error as FaultlineError).metadata).toMatchObject({
      origin: 'timeout',
      delivered: { chunks: 1, characters: 3 },
    });
    expect(finalCalls()).toBe(0);
  });

  it('a source that ends without its terminal event rejects finalMessage() as interrupted', async () => {
    const { helper, finalCalls } = helperOver([text('Hel'), 'end'], async () => 'Hel');
    const error = await guardStream(helper, options)
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    expect((error as FaultlineError).classification.reason).toBe('interrupted');
    expect(finalCalls()).toBe(0);
  });

  it('while the caller iterates, finalMessage() waits for that iteration and shares its outcome', async () => {
    const { helper } = helperOver([text('Hel'), text('lo'), stop], async () => 'Hello');
    const guarded = guardStream(helper, options);
    const iterator = guarded[Symbol.asyncIterator]();
    await iterator.next();
    let settled = false;
    const final = guarded.finalMessage().then((value) => {
      settled = true;
      return value;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    while (!(await iterator.next()).done) {
      // the caller reads the rest
    }
    await expect(final).resolves.toBe('Hello');
  });

  it('an error from the iteration is the one finalMessage() rejects with (the same object)', async () => {
    const { helper } = helperOver([text('Hel'), 'end'], async () => 'Hel');
    const guarded = guardStream(helper, options);
    const { error } = await collect(guarded);
    await expect(guarded.finalMessage()).rejects.toBe(error);
  });

  it("a rejection from the source's own method is classified, with what was delivered", async () => {
    const { helper } = helperOver([text('Hel'), stop], () =>
      Promise.reject(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } })),
    );
    const error = await guardStream(helper, options)
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect((error as FaultlineError).classification.reason).toBe('interrupted');
    expect((error as FaultlineError).metadata.delivered).toEqual({ chunks: 2, characters: 3 });
  });

  it("a FaultlineError from the source's own method gains what was delivered", async () => {
    const spent = classifyError(new Error('x'), {
      extractors: [
        {
          provider: 'p',
          extract: () => ({ provider: 'p', origin: 'http', statusCode: 429, message: 'insufficient_quota' }),
        },
      ],
    });
    expect(spent.toErrorReport().nextStep).toBe('fallback');
    const { helper } = helperOver([text('Hel'), stop], () => Promise.reject(spent));
    const error = await guardStream(helper, options)
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    expect((error as FaultlineError).cause).toBe(spent);
    expect((error as FaultlineError).toErrorReport()).toMatchObject({
      reason: 'quota',
      nextStep: 'fix_configuration',
      delivered: { chunks: 2, characters: 3 },
      recovery: { fallback: false },
    });
  });

  it('reads result methods without calling getters, and survives a hostile proxy', async () => {
    let getterCalls = 0;
    const source = {
      ...scripted([stop]),
      get finalText() {
        getterCalls += 1;
        return () => Promise.resolve('x');
      },
    };
    const guarded = guardStream(source, options) as unknown as Record<string, unknown>;
    expect(guarded.finalText).toBeUndefined();
    expect(getterCalls).toBe(0);
    const hostile = new Proxy(scripted([stop]), {
      ownKeys() {
        throw new Error('no keys for you');
      },
    });
    const { error } = await collect(guardStream(hostile, options));
    expect(error).toBeUndefined();
  });
});

describe('guardStream: an event that is not JSON', () => {
  it('a JSON.parse SyntaxError mid-stream is a malformed answer (interrupted), its quoted body dropped', async () => {
    let parseError: unknown;
    try {
      JSON.parse('The server SECRET-BODY-CANARY had an error');
    } catch (error) {
      parseError = error;
    }
    const { error } = await collect(
      guardStream(scripted<Chunk>([text('Hel'), parseError as Error]), {
        ...options,
        provider: 'acme',
      }),
    );
    expect(FaultlineError.isInstance(error)).toBe(true);
    const report = (error as FaultlineError).toErrorReport();
    expect(report).toMatchObject({
      reason: 'interrupted',
      provider: 'acme',
      delivered: { chunks: 1, characters: 3 },
    });
    expect(report.providerMetadata).toMatchObject({ origin: 'malformed_response', networkPhase: 'stream' });
    expect(JSON.stringify(report)).not.toContain('SECRET-BODY-CANARY');
  });

  it('outside a stream the same SyntaxError stays a local bug', () => {
    let parseError: unknown;
    try {
      JSON.parse('{"a":');
    } catch (error) {
      parseError = error;
    }
    expect(classifyError(parseError).classification.reason).toBe('local_bug');
  });
});

describe('guardStream: onAbandon', () => {
  it('is called once when the idle timer gives up on a pending pull, and never on a clean end', async () => {
    let abandoned = 0;
    const stalled = await collect(
      guardStream(scripted<Chunk>([text('Hel'), 'hang']), {
        ...options,
        idleTimeoutMs: 20,
        onAbandon: () => {
          abandoned += 1;
        },
      }),
    );
    expect((stalled.error as FaultlineError).classification.reason).toBe('interrupted');
    expect(abandoned).toBe(1);
    const whole = await collect(
      guardStream(scripted<Chunk>([text('Hel'), stop]), {
        ...options,
        onAbandon: () => {
          abandoned += 1;
        },
      }),
    );
    expect(whole.error).toBeUndefined();
    expect(abandoned).toBe(1);
  });

  it('a web ReadableStream stuck in a read is cancelled by the guard itself, with no onAbandon', async () => {
    let cancelled = 0;
    let pulls = 0;
    const source = new ReadableStream<Chunk>({
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(text('Hel'));
        // Later pulls never settle: a stall after the first chunk.
        else return new Promise<void>(() => {});
      },
      cancel() {
        cancelled += 1;
      },
    });
    const { chunks, error } = await collect(guardStream(source, { ...options, idleTimeoutMs: 20 }));
    expect(chunks).toHaveLength(1);
    expect((error as FaultlineError).toErrorReport().providerMetadata).toMatchObject({ origin: 'timeout' });
    expect(cancelled).toBe(1);
  });

  it('a web ReadableStream left early by the consumer is cancelled', async () => {
    let cancelled = 0;
    const source = new ReadableStream<Chunk>({
      pull(controller) {
        controller.enqueue(text('x'));
      },
      cancel() {
        cancelled += 1;
      },
    });
    for await (const _chunk of guardStream(source, options)) break;
    expect(cancelled).toBe(1);
  });

  it('a throwing onAbandon changes nothing', async () => {
    const { error } = await collect(
      guardStream(scripted<Chunk>(['hang']), {
        ...options,
        idleTimeoutMs: 20,
        onAbandon: () => {
          throw new Error('release failed');
        },
      }),
    );
    expect((error as FaultlineError).classification.reason).toBe('interrupted');
  });
});

describe('guardStream: chunks as they are', () => {
  it('passes a thenable chunk and a revoked Proxy chunk through as the same objects, unawaited', async () => {
    // biome-ignore lint/suspicious/noThenProperty: a thenable chunk is what this test is about
    const thenable = { type: 'delta', text: 'a', then: () => {} };
    const { proxy, revoke } = Proxy.revocable({ type: 'delta' }, {});
    revoke();
    const values: unknown[] = [thenable, proxy, stop];
    let index = 0;
    const source: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          Promise.resolve(
            index < values.length
              ? { done: false, value: values[index++] }
              : { done: true as const, value: undefined },
          ),
      }),
    };
    const { chunks, error } = await collect(
      guardStream(source, {
        requireTerminal: true,
        readChunk: (chunk) => ({ characters: 0, terminal: (chunk as Chunk).type === 'message_stop' }),
      }),
    );
    expect(error).toBeUndefined();
    expect(chunks[0]).toBe(thenable);
    expect(chunks[1]).toBe(proxy);
  });

  it("hands on the source's own step object for an ordinary step, a fresh one otherwise", async () => {
    const ordinary = { done: false, value: text('a') };
    // A step that becomes a thenable once its promise is fulfilled: handed on, it would be adopted.
    const thenable: Record<string, unknown> = { done: false, value: text('b') };
    const loose = { done: 0, value: text('c') };
    const steps: object[] = [ordinary, thenable, loose, { done: false, value: stop }];
    let index = 0;
    const source: AsyncIterable<Chunk> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          const step = steps[index++] ?? { done: true, value: undefined };
          const fulfilled = Promise.resolve(step as IteratorResult<Chunk>);
          // biome-ignore lint/suspicious/noThenProperty: a step that becomes a thenable is what this test is about
          if (step === thenable) thenable.then = () => {};
          return fulfilled;
        },
      }),
    };
    const iterator = guardStream(source, options)[Symbol.asyncIterator]();
    expect(await iterator.next()).toBe(ordinary);
    const second = await iterator.next();
    expect(second).not.toBe(thenable);
    expect(second).toEqual({ done: false, value: thenable.value });
    const third = await iterator.next();
    expect(third).not.toBe(loose);
    expect(third).toEqual({ done: false, value: loose.value });
    expect((await iterator.next()).value).toBe(stop);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("a source's next() giving a Promise subclass whose then() throws or gives no promise: classified, as any other step", async () => {
    // A subclass's own then() is the source's code: Promise.resolve adopts it in a job of its own,
    // where a throw rejects and a non-promise is never handed to the caller.
    class Throwing<T> extends Promise<T> {
      // biome-ignore lint/suspicious/noThenProperty: a then() that throws is what this test is about
      override then(): never {
        throw new Error('then() threw');
      }
    }
    class Hollow<T> extends Promise<T> {
      // biome-ignore lint/suspicious/noThenProperty: a then() that gives no promise is what this test is about
      override then(onFulfilled?: ((value: T) => unknown) | null): never {
        onFulfilled?.({ done: false, value: text('a') } as T);
        return undefined as never;
      }
    }
    for (const idleTimeoutMs of [0, 5000]) {
      const throwing: AsyncIterable<Chunk> = {
        [Symbol.asyncIterator]: () => ({
          next: () =>
            new Throwing<IteratorResult<Chunk>>((resolve) => resolve({ done: true, value: undefined })),
        }),
      };
      const thrown = await collect(guardStream(throwing, { ...options, idleTimeoutMs }));
      expect(FaultlineError.isInstance(thrown.error)).toBe(true);
      let pulls = 0;
      const hollow: AsyncIterable<Chunk> = {
        [Symbol.asyncIterator]: () => ({
          next: () =>
            pulls++ === 0
              ? new Hollow<IteratorResult<Chunk>>((resolve) => resolve({ done: true, value: undefined }))
              : Promise.resolve({ done: false, value: stop }),
        }),
      };
      const iterator = guardStream(hollow, { ...options, idleTimeoutMs })[Symbol.asyncIterator]();
      const first = iterator.next();
      expect(first).toBeInstanceOf(Promise);
      expect(await first).toEqual({ done: false, value: text('a') });
      await iterator.return?.();
    }
  });

  it("reads the source iterator's next once, as for await does; a next that is no function still fails the pull", async () => {
    // A source that swaps its own next() after the first pull: `for await` over it keeps calling
    // the first one (the iterator record holds it), and so does the guard, for both idle modes.
    const swapping = (): AsyncIterable<Chunk> => ({
      [Symbol.asyncIterator]: () => {
        let pulls = 0;
        const iterator = {
          next(): Promise<IteratorResult<Chunk>> {
            iterator.next = () => Promise.reject(new Error('the swapped next() was called'));
            pulls += 1;
            return Promise.resolve(
              pulls < 3 ? { done: false, value: text('a') } : { done: false, value: stop },
            );
          },
        };
        return iterator;
      },
    });
    const bare: Chunk[] = [];
    for await (const chunk of swapping()) {
      bare.push(chunk);
      if (chunk.type === 'message_stop') break;
    }
    for (const idleTimeoutMs of [0, 5000]) {
      const guarded: Chunk[] = [];
      for await (const chunk of guardStream(swapping(), { ...options, idleTimeoutMs })) {
        guarded.push(chunk);
        if (chunk.type === 'message_stop') break;
      }
      expect(guarded).toEqual(bare);
      const { error } = await collect(
        guardStream({ [Symbol.asyncIterator]: () => ({ next: 1 }) } as unknown as AsyncIterable<Chunk>, {
          ...options,
          idleTimeoutMs,
        }),
      );
      expect(FaultlineError.isInstance(error)).toBe(true);
      expect((error as FaultlineError).message).toContain('iterator.next is not a function');
    }
  });

  it('reads one step at a time when next() is called without awaiting', async () => {
    const iterator = guardStream(scripted<Chunk>([text('a'), text('b'), stop]), options)[
      Symbol.asyncIterator
    ]();
    const steps = await Promise.all([iterator.next(), iterator.next(), iterator.next(), iterator.next()]);
    expect(steps.map((step) => (step.done ? 'done' : (step.value as Chunk).type))).toEqual([
      'delta',
      'delta',
      'message_stop',
      'done',
    ]);
  });

  it('arms one idle timer per stream, not one per chunk', async () => {
    vi.useFakeTimers();
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const many = Array.from({ length: 500 }, () => text('x'));
    const { error } = await collect(guardStream(scripted<Chunk>([...many, stop]), options));
    expect(error).toBeUndefined();
    expect(timeouts.mock.calls.length + intervals.mock.calls.length).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('guardStream: readChunk', () => {
  it('reads each chunk once, and the guard counts what it says', async () => {
    const read: Chunk[] = [];
    const chunks = [text('abc'), text('de'), stop];
    const { chunks: seen, error } = await collect(
      guardStream(scripted<Chunk>(chunks), {
        requireTerminal: true,
        readChunk: (chunk) => {
          read.push(chunk);
          return readChunk(chunk);
        },
      }),
    );
    expect(error).toBeUndefined();
    expect(seen).toEqual(chunks);
    expect(read).toEqual(chunks);
  });

  it('a withheld answer is let through, counted, when detectBlockedAnswer is false; an error event is thrown either way', async () => {
    const blocked = { provider: 'test', message: 'withheld', origin: 'blocked_response' as const };
    const event = { provider: 'test', message: 'in-stream error', origin: 'stream_event' as const };
    const reader = (chunk: Chunk) => ({
      ...readChunk(chunk),
      failure: chunk.type === 'blocked' ? blocked : chunk.type === 'error' ? event : undefined,
    });
    const through = await collect(
      guardStream(scripted<Chunk>([text('ab'), { type: 'blocked', text: 'xyz' }, stop]), {
        requireTerminal: true,
        readChunk: reader,
        detectBlockedAnswer: false,
      }),
    );
    expect(through.error).toBeUndefined();
    expect(through.chunks).toHaveLength(3);
    const thrown = await collect(
      guardStream(scripted<Chunk>([text('ab'), { type: 'error' }, stop]), {
        readChunk: reader,
        detectBlockedAnswer: false,
      }),
    );
    expect(thrown.chunks).toHaveLength(1);
    expect((thrown.error as FaultlineError).toErrorReport().delivered).toEqual({ chunks: 1, characters: 2 });
  });

  it('without requireTerminal, a stream that ends without a terminal reading completes', async () => {
    const { error } = await collect(guardStream(scripted<Chunk>([text('ab'), 'end']), { readChunk }));
    expect(error).toBeUndefined();
  });
});

describe('toolCallCharacters', () => {
  it('counts argument deltas, one for arguments sent whole, nothing for anything else', () => {
    const calls = [
      { index: 0, function: { name: 'lookup', arguments: '{"city":' } },
      { index: 1, function: { arguments: { city: 'Paris' } } },
      { index: 2, function: { name: 'only-a-name' } },
      { function: null },
      null,
      'x',
    ];
    expect(toolCallCharacters(calls)).toBe(9);
    expect(toolCallCharacters(undefined)).toBe(0);
    expect(toolCallCharacters({ function: { arguments: 'x' } })).toBe(0);
    // Bounded: the first 64 calls of one delta.
    expect(toolCallCharacters(Array.from({ length: 100 }, () => ({ function: { arguments: 'ab' } })))).toBe(
      128,
    );
  });
});
