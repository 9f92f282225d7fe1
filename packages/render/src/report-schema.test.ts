import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { classifyError, type ErrorReport, guardStream, toDict } from './index.ts';
import { errorReportJsonSchema } from './report-json-schema.ts';
import { errorFromMetadata } from './toolkit.ts';

const shipped = JSON.parse(
  readFileSync(new URL('../error-report.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** A port on 127.0.0.1 that refuses connections: one a server listened on and has closed. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('error-report.schema.json', () => {
  it('is what the valibot schema generates now (regenerate: pnpm --filter @faultline/render generate:schema)', () => {
    expect(shipped).toEqual(errorReportJsonSchema());
  });

  it('accepts the reports render builds from real failures, and rejects an unknown key', async () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(shipped);
    const port = await refusedPort();
    const refused = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`).catch(
      (error: unknown) => error,
    );
    const connection = classifyError(refused, { model: 'gpt-4o-mini', operation: 'chat' }).toErrorReport();
    expect(connection.reason).toBe('connection');
    // A stream that ends without its terminal event: `interrupted`, with what it delivered.
    const source = (async function* () {
      yield 'Hello, ';
      yield 'wor';
    })();
    const cut = await (async () => {
      try {
        for await (const _chunk of guardStream(source, {
          idleTimeoutMs: 0,
          requireTerminal: true,
          readChunk: (chunk) => ({ characters: chunk.length, terminal: false }),
        })) {
          // drain
        }
      } catch (error) {
        return classifyError(error).toErrorReport();
      }
      throw new Error('the stream ended without its terminal event, and the guard let it');
    })();
    expect(cut.delivered).toEqual({ chunks: 2, characters: 10 });
    // A rate limit sent in-band (a stream's error event) with the provider's wait.
    const waited = errorFromMetadata(
      { provider: 'openai', message: 'Rate limit reached', origin: 'stream_event', retryAfterSeconds: 20 },
      { now: Date.UTC(2026, 0, 2, 3, 4, 5) },
    ).toErrorReport();
    expect(waited.retryableAt).toBe('2026-01-02T03:04:25.000Z');
    const reports: ErrorReport[] = [connection, cut, waited];
    for (const report of reports) {
      const dict = toDict(report);
      expect(validate(dict), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(validate({ ...toDict(connection), extra: true })).toBe(false);
    expect(validate({ ...toDict(connection), schemaVersion: 1 })).toBe(false);
    expect(validate({ ...toDict(waited), retryableAt: 'in 20 seconds' })).toBe(false);
  });
});
