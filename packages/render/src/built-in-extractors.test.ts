import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  builtInExtractors,
  localBugExtractor,
  streamParseExtractor,
  transportExtractor,
  zodExtractor,
} from './built-in-extractors.ts';
import { classifyError, FaultlineError } from './index.ts';
import { bindWithClassifiedErrors } from './toolkit.ts';

// render's generic withClassifiedErrors requires extractors; these tests read with the built-in ones alone.
const withBuiltIns = bindWithClassifiedErrors({ extractors: [] });

async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('builtInExtractors', () => {
  it('are exported in order: transport, zod, stream parse, local bug', () => {
    expect(builtInExtractors).toEqual([
      transportExtractor,
      zodExtractor,
      streamParseExtractor,
      localBugExtractor,
    ]);
  });
  it('a real ECONNREFUSED through withClassifiedErrors is connection, cause kept', async () => {
    const port = await closedPort();
    const error = await rejection(() => withBuiltIns(() => fetch(`http://127.0.0.1:${port}/`)));
    expect(FaultlineError.isInstance(error)).toBe(true);
    const faultline = error as FaultlineError;
    expect(faultline.classification.reason).toBe('connection');
    expect((faultline.cause as Error).message).toBe('fetch failed');
    expect(faultline.toErrorReport().providerMetadata).toMatchObject({
      origin: 'network',
      networkCode: 'ECONNREFUSED',
      networkPhase: 'connect',
    });
  });
  it('a real retried ECONNREFUSED gives up after maxAttempts', async () => {
    const port = await closedPort();
    let attempts = 0;
    const error = await rejection(() =>
      withBuiltIns(
        () => {
          attempts += 1;
          return fetch(`http://127.0.0.1:${port}/`);
        },
        { retry: { maxAttempts: 2, baseDelayMs: 1 } },
      ),
    );
    expect(attempts).toBe(2);
    expect((error as FaultlineError).classification.reason).toBe('connection');
  });
  it('a real DNS failure on a .invalid host is endpoint', async () => {
    const error = await rejection(() => withBuiltIns(() => fetch('http://faultline-render.invalid/')));
    expect((error as FaultlineError).classification.reason).toBe('endpoint');
  });
  it("a real AbortSignal.timeout is a timeout; the caller's real abort stays an untouched AbortError", async () => {
    const server = createHttpServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const timedOut = await rejection(() =>
        withBuiltIns(() => fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(30) })),
      );
      expect((timedOut as FaultlineError).classification.reason).toBe('timeout');

      const controller = new AbortController();
      setTimeout(() => controller.abort(), 30);
      let thrownBySdk: unknown;
      const aborted = await rejection(() =>
        withBuiltIns(
          async ({ signal }) => {
            try {
              return await fetch(`http://127.0.0.1:${port}/`, { signal });
            } catch (error) {
              thrownBySdk = error;
              throw error;
            }
          },
          { signal: controller.signal, retry: true },
        ),
      );
      expect(aborted).toBe(thrownBySdk);
      expect((aborted as Error).name).toBe('AbortError');
      expect(FaultlineError.isInstance(aborted)).toBe(false);
      // classifyError, asked directly, marks it as the caller's abort.
      expect(classifyError(aborted, { signal: controller.signal }).classification.callerAborted).toBe(true);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
  it('a zod error is validation; a TypeError of our own is a local bug; fetch failed is not', () => {
    const zodError = z.string().safeParse(1).error;
    expect(classifyError(zodError).metadata.origin).toBe('validation');
    expect(classifyError(new TypeError('undefined is not a function')).classification.reason).toBe(
      'local_bug',
    );
    expect(classifyError(new TypeError('fetch failed')).classification.reason).not.toBe('local_bug');
    expect(classifyError(new TypeError('terminated')).classification.reason).toBe('interrupted');
  });
});
