import { Writable } from 'node:stream';
import { withClassifiedErrors } from '@faultline/extract-openai';
import { FaultlineError } from '@faultline/render';
import { type LoopbackServer, type Scenario, startLoopbackServer } from '@faultline/test-fixtures';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import winston from 'winston';
import { faultlineErrorSerializer } from './index.ts';

// Canaries: the key the SDK sends (Authorization header) and the provider quotes back, an
// Authorization header the provider echoes, the prompt the SDK sends, and a body field no report reads.
const KEY = 'sk-proj-LogCanaryKey0123456789abcdefXYZ';
const ECHOED_AUTH = 'Authorization: Bearer sk-LogCanaryEcho9876543210';
const PROMPT = 'PROMPT-CANARY: the quarterly numbers nobody may see';
const RAW_BODY = 'RAW-BODY-CANARY-7f3a';
const CANARIES = [KEY, 'LogCanaryKey', 'LogCanaryEcho', PROMPT, 'PROMPT-CANARY', RAW_BODY];

const invalidKey = {
  id: 'openai/log-canary',
  provider: 'openai',
  description: 'a 401 quoting the key and an Authorization header, with an extra body field',
  source: 'https://platform.openai.com/docs/guides/error-codes (401 invalid_api_key)',
  response: {
    kind: 'http',
    status: 401,
    headers: { 'content-type': 'application/json', 'x-echo-authorization': `Bearer ${KEY}` },
    body: JSON.stringify({
      error: {
        message: `Incorrect API key provided: ${KEY}. The request carried ${ECHOED_AUTH}.`,
        type: 'invalid_request_error',
        param: RAW_BODY,
        code: 'invalid_api_key',
        debug: { echo: RAW_BODY },
      },
    }),
  },
  expected: {
    category: 'configuration',
    reason: 'auth',
    retryable: false,
    userAction: 'check_credentials',
    httpStatus: 500,
  },
} as Scenario;

let server: LoopbackServer;
let failure: FaultlineError;

beforeAll(async () => {
  server = await startLoopbackServer();
  const client = new OpenAI({ baseURL: server.baseUrlFor(invalidKey), apiKey: KEY, maxRetries: 0 });
  failure = (await withClassifiedErrors(({ signal }) =>
    client.chat.completions.create(
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] },
      { signal },
    ),
  ).catch((error: unknown) => error)) as FaultlineError;
  expect(FaultlineError.isInstance(failure)).toBe(true);
  // The canaries did reach the SDK and its error: the log line is what must drop them.
  const [request] = server.requests(invalidKey);
  expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(request?.body).toContain(PROMPT);
});
afterAll(() => server?.close());

/** Real pino writing to a stream; returns the lines written. */
function pinoLines(log: (logger: pino.Logger) => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = pino({ serializers: { err: faultlineErrorSerializer(pino.stdSerializers.err) } }, stream);
  log(logger);
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

function expectNoCanary(line: string) {
  for (const canary of CANARIES) expect(line).not.toContain(canary);
}

describe('pino serializer, with real pino and the real openai SDK error', () => {
  it('logs the report of a FaultlineError, never the key, an Authorization header, the prompt or the raw body', () => {
    const [line] = pinoLines((logger) => logger.error({ err: failure }, 'model call failed'));
    expectNoCanary(JSON.stringify(line));
    const err = line!.err as Record<string, unknown>;
    expect(err.report).toEqual(JSON.parse(JSON.stringify(failure.toErrorReport())));
    expect(err).toMatchObject({ type: failure.errorType, message: failure.toErrorReport().message });
    expect((err.report as Record<string, unknown>).reason).toBe(invalidKey.expected.reason);
  });

  it('logs the report when the app wrapped the failure in its own Error (and as the first argument)', () => {
    const wrapped = new Error('the greeting handler failed', { cause: failure });
    const [line] = pinoLines((logger) => logger.error(wrapped));
    expectNoCanary(JSON.stringify(line));
    const err = line!.err as Record<string, unknown>;
    expect(err.type).toBe('Error');
    expect(err.message).toBe('the greeting handler failed');
    expect(err.stack).toMatch(/^Error: the greeting handler failed\n\s+at /);
    expect((err.report as Record<string, unknown>).reason).toBe(invalidKey.expected.reason);
  });

  it('refuses a fallback that is not a function (an options object) at setup, with a TypeError', () => {
    const setup = () =>
      faultlineErrorSerializer({ fallback: pino.stdSerializers.err } as unknown as (
        value: unknown,
      ) => unknown);
    expect(setup).toThrow(TypeError);
    expect(setup).toThrow('faultlineErrorSerializer: fallback must be a function');
  });

  it("leaves any other error to pino's own serializer", () => {
    const [line] = pinoLines((logger) => logger.error({ err: new RangeError('not ours') }, 'boom'));
    expect(line!.err).toMatchObject({ type: 'RangeError', message: 'not ours' });
    expect((line!.err as Record<string, unknown>).report).toBeUndefined();
  });

  it("shows what pino's own serializer would have written (why this one exists)", () => {
    // The control: without faultline's serializer, the SDK's error text reaches the line.
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    pino(stream).error({ err: new Error('wrapper', { cause: failure.cause }) }, 'unprotected');
    expect(lines[0]).toContain('LogCanaryEcho');
  });
});

describe('toJSON, what winston and JSON.stringify users get', () => {
  it('winston with format.json() writes the report', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = winston.createLogger({
      format: winston.format.json(),
      transports: [new winston.transports.Stream({ stream })],
    });
    logger.error('model call failed', { error: failure });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expectNoCanary(lines[0]!);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line.error).toEqual(JSON.parse(JSON.stringify(failure.toErrorReport())));
  });

  it('JSON.stringify(error) is the report', () => {
    const text = JSON.stringify({ error: failure });
    expectNoCanary(text);
    expect(JSON.parse(text).error).toEqual(JSON.parse(JSON.stringify(failure.toErrorReport())));
  });
});

describe('total', () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('get');
      },
    },
  );

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'boom'],
    ['a Proxy whose getters throw', hostile],
  ])('hands %s to the fallback, untouched', (_name, value) => {
    const seen: unknown[] = [];
    const serializer = faultlineErrorSerializer((input: unknown) => {
      seen.push(input);
      return 'fallback';
    });
    expect(serializer(value)).toBe('fallback');
    expect(seen).toHaveLength(1);
    expect(seen[0] === value).toBe(true);
    expect(faultlineErrorSerializer()(value)).toBe(value);
  });
});
