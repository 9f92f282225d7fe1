import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decodeEventStreamMessages, encodeEventStreamMessage } from './event-stream.ts';

// The reference implementation the AWS SDKs decode with, loaded through `require`: its `module`
// build has extensionless imports that vitest's resolve conditions would pick.
const { EventStreamCodec } = createRequire(import.meta.url)(
  '@smithy/eventstream-codec',
) as typeof import('@smithy/eventstream-codec');
const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

const messages: ReadonlyArray<{ headers: Record<string, string>; payload: string }> = [
  { headers: { ':message-type': 'event', ':event-type': 'contentBlockDelta' }, payload: '{"delta":"é ✓"}' },
  {
    headers: { ':message-type': 'exception', ':exception-type': 'throttlingException' },
    payload: '{"message":"Too many requests, please wait before trying again."}',
  },
  { headers: {}, payload: '' },
];

describe('the AWS event-stream framing', () => {
  it('writes the bytes the AWS SDKs write', () => {
    for (const message of messages) {
      const headers = Object.fromEntries(
        Object.entries(message.headers).map(([name, value]) => [name, { type: 'string' as const, value }]),
      );
      const reference = codec.encode({ headers, body: new TextEncoder().encode(message.payload) });
      expect(Buffer.from(encodeEventStreamMessage(message))).toEqual(Buffer.from(reference));
    }
  });

  it('reads what the AWS SDKs write, every header type, split at any byte', () => {
    const frame = codec.encode({
      headers: {
        yes: { type: 'boolean', value: true },
        no: { type: 'boolean', value: false },
        byte: { type: 'byte', value: -7 },
        short: { type: 'short', value: -300 },
        integer: { type: 'integer', value: 70000 },
        text: { type: 'string', value: 'throttlingException' },
        bytes: { type: 'binary', value: new Uint8Array([1, 2, 255]) },
        at: { type: 'timestamp', value: new Date(1_700_000_000_000) },
      },
      body: new TextEncoder().encode('{"message":"slow"}'),
    });
    const both = Buffer.concat([frame, encodeEventStreamMessage(messages[0]!)]);
    for (const cut of [0, 3, frame.length - 1, frame.length, both.length - 1]) {
      const { messages: decoded, rest } = decodeEventStreamMessages(both.subarray(0, cut));
      expect(decoded.length).toBe(cut >= frame.length ? 1 : 0);
      expect(rest.length).toBe(cut - (cut >= frame.length ? frame.length : 0));
    }
    const { messages: decoded, rest } = decodeEventStreamMessages(both);
    expect(rest).toHaveLength(0);
    expect(decoded).toEqual([
      {
        headers: {
          yes: true,
          no: false,
          byte: -7,
          short: -300,
          integer: 70000,
          text: 'throttlingException',
          bytes: Buffer.from([1, 2, 255]).toString('base64'),
          at: 1_700_000_000_000,
        },
        payload: '{"message":"slow"}',
      },
      messages[0],
    ]);
  });

  it('refuses a frame whose CRC does not match', () => {
    const frame = encodeEventStreamMessage(messages[1]!);
    const corrupt = Uint8Array.from(frame);
    corrupt[20] = (corrupt[20] ?? 0) ^ 1;
    expect(() => decodeEventStreamMessages(corrupt)).toThrow(/message CRC/);
    const prelude = Uint8Array.from(frame);
    prelude[5] = (prelude[5] ?? 0) ^ 1;
    expect(() => decodeEventStreamMessages(prelude)).toThrow(/prelude CRC/);
  });
});
