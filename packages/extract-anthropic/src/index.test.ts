import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, clientFor, REQUEST, SDKS } from '../test/support.ts';
import { withClassifiedErrors } from './index.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('withClassifiedErrors bound to the Anthropic extractor', () => {
  for (const { alias, Client } of SDKS) {
    it(`${alias}: a 429 leaves as a FaultlineError whose cause is the SDK error`, async () => {
      const scenario = loadScenario('anthropic/rate-limit');
      const client = clientFor(Client, server.baseUrlFor(scenario));
      let sdkError: unknown;
      const error = await rejection(
        withClassifiedErrors(
          () =>
            client.messages.create(REQUEST).catch((thrown: unknown) => {
              sdkError = thrown;
              throw thrown;
            }),
          // One attempt: the default retry would wait out the 20 s Retry-After.
          { retry: false },
        ),
      );
      expect(FaultlineError.isInstance(error)).toBe(true);
      const faultline = error as FaultlineError;
      expect(faultline.cause).toBe(sdkError);
      expect((sdkError as { status?: unknown }).status).toBe(429);
      const report = faultline.toErrorReport();
      expect(report.reason).toBe('rate_limit');
      expect(report.provider).toBe('anthropic');
      expect(report.retryAfterSeconds).toBe(20);
      expect(report.providerMetadata.requestId).toBe('req_011CFaultlineRateLimit');
      const serialised = JSON.stringify(report);
      expect(serialised).not.toContain(API_KEY);
      expect(serialised).not.toContain('"type":"error"');
    });

    it(`${alias}: a refused 200 answer becomes content_policy, with a documented opt-out`, async () => {
      const scenario = loadScenario('anthropic/refusal');
      const client = clientFor(Client, server.baseUrlFor(scenario));
      const error = await rejection(withClassifiedErrors(() => client.messages.create(REQUEST)));
      expect(FaultlineError.isInstance(error)).toBe(true);
      const report = (error as FaultlineError).toErrorReport();
      expect(report.reason).toBe('content_policy');
      expect(report.category).toBe('content');
      expect(report.retryable).toBe(false);
      expect((error as FaultlineError).metadata.blockReason).toBe('refusal');

      const answer = await withClassifiedErrors(() => client.messages.create(REQUEST), {
        inspectResult: undefined,
      });
      expect((answer as { stop_reason?: unknown }).stop_reason).toBe('refusal');
    });

    it(`${alias}: retries an overloaded 529 when asked to, with SDK retries off`, async () => {
      const scenario = loadScenario('anthropic/overloaded');
      const client = clientFor(Client, server.baseUrlFor(scenario));
      const retries: number[] = [];
      const error = await rejection(
        withClassifiedErrors(() => client.messages.create(REQUEST), {
          retry: { maxAttempts: 2, baseDelayMs: 1, onRetry: (event) => retries.push(event.attempt) },
        }),
      );
      expect((error as FaultlineError).toErrorReport().reason).toBe('overloaded');
      expect(retries).toEqual([1]);
      expect(server.requests(scenario)).toHaveLength(2);
    });

    it(`${alias}: a bad key is not retried`, async () => {
      const scenario = loadScenario('anthropic/invalid-api-key');
      const client = clientFor(Client, server.baseUrlFor(scenario));
      const error = await rejection(
        withClassifiedErrors(() => client.messages.create(REQUEST), {
          retry: { maxAttempts: 3, baseDelayMs: 1 },
        }),
      );
      expect((error as FaultlineError).toErrorReport().reason).toBe('auth');
      expect(server.requests(scenario)).toHaveLength(1);
    });
  }
});

describe('deadlineMs bounds a call the SDK never settles', () => {
  it('anthropic-v039: a body cut short of its Content-Length fails at the deadline', async () => {
    const scenario = loadScenario('anthropic/body-cut-after-content-length');
    const { Client } = SDKS.find((sdk) => sdk.alias === 'anthropic-v039')!;
    const client = clientFor(Client, server.baseUrlFor(scenario));
    const started = Date.now();
    const error = await rejection(
      withClassifiedErrors(({ signal }) => client.messages.create(REQUEST, { signal }), { deadlineMs: 400 }),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(FaultlineError.isInstance(error)).toBe(true);
    const report = (error as FaultlineError).toErrorReport();
    // The deadline is not the caller's abort: node-fetch's AbortError reads as a timeout.
    expect(report.callerAborted).toBe(false);
    expect(report.reason).toBe('timeout');
    expect(report.provider).toBe('anthropic');
  });
});
