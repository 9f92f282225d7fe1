/**
 * The check every adapter of a Stainless-generated SDK (openai, @anthropic-ai/sdk, groq-sdk) passes
 * on each major it tests: the family's reading (`@faultline/stainless`) gives the same answer
 * through every SDK, on what the real SDK throws against a loopback server. It pins the points
 * where the three adapters once drifted apart: the phase of the SDK's own timeout, who fired an
 * abort, the connection error's cause, request ids and retry headers, and the reading of a body
 * that is not JSON (the SDK path and `read<Provider>HttpFailure` agree).
 * Import it from tests only (`@faultline/test-fixtures/stainless-family-check`): it registers
 * vitest suites.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  classify,
  type Extractor,
  type HttpFailure,
  type HttpFailureReadOptions,
  type ProviderErrorMetadata,
} from '@faultline/classify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** One major of the SDK, by its devDependency alias. */
export interface StainlessSdk {
  readonly alias: string;
  /** One non-streamed request through the real SDK (`maxRetries: 0`), rejecting with what it threw. */
  call(
    baseURL: string,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): Promise<unknown>;
}

export interface StainlessFamilyCheckOptions {
  readonly provider: string;
  readonly extractor: Extractor;
  readonly read: (response: HttpFailure, options?: HttpFailureReadOptions) => ProviderErrorMetadata;
  readonly sdks: readonly StainlessSdk[];
  /** The header the provider sends its request id in (`x-request-id`, `request-id`). */
  readonly requestIdHeader: string;
  /** The provider's own JSON body for a 429. */
  readonly rateLimitBody: string;
}

const REQUEST_ID = 'req_family_0001';
const HTML_BODY =
  '<html><head><title>502 Faultline Gateway Down</title></head><body>upstream SECRET-PAGE-TEXT</body></html>';
const TEXT_BODY = 'upstream connect error or disconnect/reset before headers\nSECRET-SECOND-LINE';

/** A loopback server whose first path segment picks the behaviour; the rest is the SDK's route. */
async function startFamilyServer(
  options: StainlessFamilyCheckOptions,
): Promise<{ base: string; refused: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const behaviour = (request.url ?? '').split('/')[1];
    request.resume();
    if (behaviour === 'stall') return; // never answers: the SDK's timer or a signal ends the call
    if (behaviour === 'reset') {
      request.socket.destroy();
      return;
    }
    if (behaviour === 'rate-limit') {
      response.writeHead(429, {
        'content-type': 'application/json',
        [options.requestIdHeader]: REQUEST_ID,
        'retry-after-ms': '1500',
        'x-should-retry': ' False ',
      });
      response.end(options.rateLimitBody);
      return;
    }
    if (behaviour === 'html') {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end(HTML_BODY);
      return;
    }
    if (behaviour === 'text') {
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end(TEXT_BODY);
      return;
    }
    response.writeHead(500);
    response.end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // A port that was just free: nothing listens there, so a connection is refused.
  const spare = createServer();
  await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
  const sparePort = (spare.address() as AddressInfo).port;
  await new Promise<void>((resolve) => spare.close(() => resolve()));
  return {
    base: `http://127.0.0.1:${port}`,
    refused: `http://127.0.0.1:${sparePort}/refused`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function thrownBy(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the SDK call resolved; a failure was expected');
}

/** The reader's view of what the server answered, headers as a plain object (as a transport gives them). */
function rawFailure(status: number, body: string, headers: Record<string, string> = {}): HttpFailure {
  return { status, headers, body };
}

export function stainlessFamilyCheck(options: StainlessFamilyCheckOptions): void {
  const { provider, extractor, read } = options;
  let server: Awaited<ReturnType<typeof startFamilyServer>>;
  beforeAll(async () => {
    server = await startFamilyServer(options);
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const sdk of options.sdks) {
    describe(`the Stainless family's reading: ${sdk.alias}`, () => {
      it("reads the SDK's own timeout as a timeout before the response, whatever the context", async () => {
        const thrown = await thrownBy(sdk.call(`${server.base}/stall`, { timeoutMs: 200 }));
        const fired = new AbortController();
        fired.abort();
        // The SDK's timer covers only the wait for the headers, and the SDK throws its abort error
        // instead when the caller's signal has fired: neither a stream nor a signal changes this.
        for (const context of [{}, { streaming: true }, { signal: fired.signal }]) {
          const metadata = extractor.extract(thrown, context as never);
          expect(metadata).toMatchObject({ provider, origin: 'timeout', networkPhase: 'before_response' });
          expect(classify(metadata as ProviderErrorMetadata).reason).toBe('timeout');
        }
      });

      it("reads the abort of the caller's signal as abort, and another signal's as a timeout", async () => {
        const caller = new AbortController();
        const call = sdk.call(`${server.base}/stall`, { timeoutMs: 30_000, signal: caller.signal });
        setTimeout(() => caller.abort(), 50);
        const thrown = await thrownBy(call);
        const own = extractor.extract(thrown, { signal: caller.signal });
        expect(own).toMatchObject({ provider, origin: 'abort', networkPhase: 'unknown' });
        expect(classify(own as ProviderErrorMetadata).reason).toBe('cancelled');
        // The signal given to faultline has not fired, so another one (a deadline) ended the call.
        const other = extractor.extract(thrown, { signal: new AbortController().signal });
        expect(other).toMatchObject({ provider, origin: 'timeout', networkPhase: 'unknown' });
        expect(classify(other as ProviderErrorMetadata).reason).toBe('timeout');
      });

      it("reads a refused connection from the cause, keeping the transport's words", async () => {
        const thrown = await thrownBy(sdk.call(server.refused, { timeoutMs: 5_000 }));
        for (const context of [{}, { streaming: true }]) {
          const metadata = extractor.extract(thrown, context as never);
          expect(metadata).toMatchObject({
            provider,
            origin: 'network',
            networkPhase: 'connect',
            networkCode: 'ECONNREFUSED',
          });
          expect(metadata?.message).toMatch(/^Connection error\. \(.+\)$/);
          expect(classify(metadata as ProviderErrorMetadata).reason).toBe('connection');
        }
      });

      it('reads a socket closed before the response as a drop before the response', async () => {
        const thrown = await thrownBy(sdk.call(`${server.base}/reset`, { timeoutMs: 5_000 }));
        const metadata = extractor.extract(thrown, { streaming: true } as never);
        expect(metadata).toMatchObject({ provider, origin: 'network', networkPhase: 'before_response' });
        expect(metadata?.message).toMatch(/^Connection error\. \(.+\)$/);
      });

      it('reads the request id, the wait and x-should-retry of an answer, as the raw-response reader does', async () => {
        const thrown = await thrownBy(sdk.call(`${server.base}/rate-limit`, { timeoutMs: 5_000 }));
        const metadata = extractor.extract(thrown, { now: () => 0 });
        expect(metadata).toMatchObject({
          provider,
          origin: 'http',
          statusCode: 429,
          sdkErrorType: 'RateLimitError',
          requestId: REQUEST_ID,
          retryAfterSeconds: 1.5,
          shouldRetryHint: false,
        });
        const fromResponse = read(
          rawFailure(429, options.rateLimitBody, {
            'content-type': 'application/json',
            [options.requestIdHeader]: REQUEST_ID,
            'retry-after-ms': '1500',
            'x-should-retry': ' False ',
          }),
          { now: 0 },
        );
        expect({ ...fromResponse, sdkErrorType: undefined }).toEqual({
          ...metadata,
          sdkErrorType: undefined,
        });
      });

      for (const [behaviour, status, body, message] of [
        ['html', 502, HTML_BODY, '502 Faultline Gateway Down'],
        ['text', 503, TEXT_BODY, '503 upstream connect error or disconnect/reset before headers'],
        ['empty', 500, '', '500 status code (no body)'],
      ] as const) {
        it(`describes a ${behaviour} body without copying it, as the raw-response reader does`, async () => {
          const thrown = await thrownBy(sdk.call(`${server.base}/${behaviour}`, { timeoutMs: 5_000 }));
          const metadata = extractor.extract(thrown, { now: () => 0 });
          expect(metadata).toMatchObject({ provider, origin: 'http', statusCode: status, message });
          expect(JSON.stringify(metadata)).not.toContain('SECRET');
          const fromResponse = read(rawFailure(status, body), { now: 0 });
          expect({ ...fromResponse, sdkErrorType: undefined }).toEqual({
            ...metadata,
            sdkErrorType: undefined,
          });
        });
      }
    });
  }
}
