// Serves complete streams in each provider's wire format from a child process, so that the bench's
// process does only the client's work: a POST to `/<provider>/<n>/…` (any path after that, the
// SDK's own) gets a complete stream of <n> chunks, written at once. The per-chunk cost the bench
// measures is then the SDK's own (socket reads, SSE or event-stream parsing, JSON, iteration); the
// fixtures' loopback server paces events 15 ms apart, which would make that cost the pace. Bedrock's
// SDK streams over HTTP/2, so the same bodies are served over h2c on a second port.
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

type Body = { readonly contentType: string; readonly bytes: Buffer };

const sse = (events: readonly string[]) => Buffer.from(events.join(''));
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

const builders: Record<string, (count: number) => Body> = {
  openai: (count) => ({
    contentType: 'text/event-stream',
    bytes: sse([...openaiChunks(count).map(data), 'data: [DONE]\n\n']),
  }),
  groq: (count) => ({
    contentType: 'text/event-stream',
    bytes: sse([...groqChunks(count).map(data), 'data: [DONE]\n\n']),
  }),
  anthropic: (count) => ({
    contentType: 'text/event-stream',
    bytes: sse(
      anthropicEvents(count).map((event) => `event: ${(event as { type: string }).type}\n${data(event)}`),
    ),
  }),
  mistral: (count) => ({
    contentType: 'text/event-stream',
    bytes: sse([...mistralEvents(count).map((event) => data(mistralWire(event))), 'data: [DONE]\n\n']),
  }),
  'google-genai': (count) => ({
    contentType: 'text/event-stream',
    bytes: sse(geminiChunks(count).map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`)),
  }),
  bedrock: (count) => ({
    contentType: 'application/vnd.amazon.eventstream',
    bytes: Buffer.concat(bedrockEvents(count).map(bedrockFrame)),
  }),
};

const bodies = new Map<string, Body>();
function bodyFor(url: string): Body | undefined {
  const match = /^\/([a-z-]+)\/(\d+)\//.exec(url);
  const build = match === null ? undefined : builders[match[1]!];
  const count = Number(match?.[2]);
  if (build === undefined || !(count >= 2)) return undefined;
  const key = `${match![1]}/${count}`;
  let body = bodies.get(key);
  if (body === undefined) {
    body = build(count);
    bodies.set(key, body);
  }
  return body;
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
    response.end(body.bytes);
  });
};

const server = http.createServer(handle);
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
