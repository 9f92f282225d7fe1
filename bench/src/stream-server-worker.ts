// Serves complete streams in each provider's wire format from a child process, so that the bench's
// process does only the client's work: a POST to `/<provider>/<n>/…` (any path after that, the
// SDK's own) gets a complete stream of <n> chunks, written at once. The per-chunk cost the bench
// measures is then the SDK's own (socket reads, SSE or event-stream parsing, JSON, iteration); the
// fixtures' loopback server paces events 15 ms apart, which would make that cost the pace. Bedrock's
// SDK streams over HTTP/2, so the same bodies are served over h2c on a second port.
//
// `/<provider>/p<n>/…` gets the same stream paced: one chunk written every PACE_MS, so that each
// reaches the client in a read of its own, as a model's tokens do (a model writes 20–100 chunks a
// second). The client's CPU time per chunk is then what the SDK spends on a chunk in a real stream:
// a socket read, a body-stream read, decoding and parsing for every chunk, where a stream written at
// once shares each read among many chunks. The waits between chunks cost the client no CPU time.
import http from 'node:http';
import http2 from 'node:http2';
import { encodeEventStreamMessage } from '@faultline/llm-mock';
import {
  anthropicEvents,
  bedrockEvents,
  geminiChunks,
  groqChunks,
  mistralEvents,
  openaiChunks,
} from './stream-chunks.ts';

/** The paced streams' gap between two chunks (ms): long enough that each chunk is read on its own. */
const PACE_MS = 1;

/** A stream's chunks as they go on the wire, one piece a chunk (written at once, or paced). */
type Body = { readonly contentType: string; readonly pieces: readonly Uint8Array[]; readonly bytes: Buffer };

const sse = (events: readonly string[]) => events.map((event) => Buffer.from(event));
const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

/** Mistral's wire chunk: the SDK's camelCase event data in the API's snake_case. */
function mistralWire(event: object): unknown {
  const chunk = (event as { data: Record<string, unknown> }).data;
  const choices = (chunk.choices as Array<Record<string, unknown>>).map(({ finishReason, ...rest }) => ({
    ...rest,
    finish_reason: finishReason,
  }));
  const usage = chunk.usage as
    | { promptTokens: number; completionTokens: number; totalTokens: number }
    | undefined;
  return {
    ...chunk,
    choices,
    ...(usage === undefined
      ? {}
      : {
          usage: {
            prompt_tokens: usage.promptTokens,
            completion_tokens: usage.completionTokens,
            total_tokens: usage.totalTokens,
          },
        }),
  };
}

/** A ConverseStream event (`{ contentBlockDelta: {…} }`) as an AWS event-stream frame. */
function bedrockFrame(event: object): Uint8Array {
  const [type, payload] = Object.entries(event)[0]!;
  return encodeEventStreamMessage({
    headers: { ':event-type': type, ':message-type': 'event', ':content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
}

const builders: Record<string, (count: number) => Omit<Body, 'bytes'>> = {
  openai: (count) => ({
    contentType: 'text/event-stream',
    pieces: sse([...openaiChunks(count).map(data), 'data: [DONE]\n\n']),
  }),
  groq: (count) => ({
    contentType: 'text/event-stream',
    pieces: sse([...groqChunks(count).map(data), 'data: [DONE]\n\n']),
  }),
  anthropic: (count) => ({
    contentType: 'text/event-stream',
    pieces: sse(
      anthropicEvents(count).map((event) => `event: ${(event as { type: string }).type}\n${data(event)}`),
    ),
  }),
  mistral: (count) => ({
    contentType: 'text/event-stream',
    pieces: sse([...mistralEvents(count).map((event) => data(mistralWire(event))), 'data: [DONE]\n\n']),
  }),
  'google-genai': (count) => ({
    contentType: 'text/event-stream',
    pieces: sse(geminiChunks(count).map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`)),
  }),
  bedrock: (count) => ({
    contentType: 'application/vnd.amazon.eventstream',
    pieces: bedrockEvents(count).map(bedrockFrame),
  }),
};

const bodies = new Map<string, Body>();
function bodyFor(url: string): (Body & { readonly paced: boolean }) | undefined {
  const match = /^\/([a-z-]+)\/(p?)(\d+)\//.exec(url);
  const build = match === null ? undefined : builders[match[1]!];
  const count = Number(match?.[3]);
  if (build === undefined || !(count >= 2)) return undefined;
  const key = `${match![1]}/${count}`;
  let body = bodies.get(key);
  if (body === undefined) {
    const { contentType, pieces } = build(count);
    body = { contentType, pieces, bytes: Buffer.concat(pieces) };
    bodies.set(key, body);
  }
  // `/<provider>/p<n>/…`: the same stream, paced.
  return { ...body, paced: match![2] === 'p' };
}

/** Writes one piece every PACE_MS, then ends; stops early when the client has gone. */
function writePaced(response: any, pieces: readonly Uint8Array[]): void {
  let next = 0;
  const write = () => {
    if (response.destroyed === true || response.writableEnded === true) return;
    if (next === pieces.length) {
      response.end();
      return;
    }
    response.write(pieces[next]);
    next += 1;
    setTimeout(write, PACE_MS);
  };
  write();
}

type Handler = (request: http.IncomingMessage | http2.Http2ServerRequest, response: any) => void;
const handle: Handler = (request, response) => {
  request.resume();
  request.on('end', () => {
    const body = bodyFor(request.url ?? '');
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no stream at ${request.url}` } }));
      return;
    }
    response.writeHead(200, { 'content-type': body.contentType, 'cache-control': 'no-cache' });
    if (body.paced) {
      // Each piece in a packet of its own (HTTP/1.1: no Nagle delay; h2c frames each write).
      (request.socket as { setNoDelay?: (noDelay: boolean) => void } | undefined)?.setNoDelay?.(true);
      writePaced(response, body.pieces);
    } else {
      response.end(body.bytes);
    }
  });
};

const server = http.createServer(handle);
// Idle keep-alive sockets are left for the client to close: a server that closes one on its own
// timer can do so just as the SDK reuses it, and the SDK (no retries here) then fails the stream
// with a connection error, most often on a busy machine where the two sides run late.
server.keepAliveTimeout = 0;
const h2c = http2.createServer(handle);
const listening = (target: http.Server | http2.Http2Server) =>
  new Promise<number>((resolve) =>
    target.listen(0, '127.0.0.1', () => {
      const address = target.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    }),
  );
const [port, h2cPort] = await Promise.all([listening(server), listening(h2c)]);
process.send!({ port, h2cPort });
process.on('message', (message: { kind: string }) => {
  if (message.kind !== 'close') return;
  server.closeAllConnections();
  let open = 2;
  const closed = () => {
    open -= 1;
    if (open === 0) process.disconnect();
  };
  server.close(closed);
  h2c.close(closed);
  setTimeout(() => process.exit(0), 1000).unref();
});
