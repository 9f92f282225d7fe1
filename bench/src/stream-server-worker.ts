// Serves complete openai chat streams from a child process, so that the bench's process does only
// the client's work: a POST to `/chunks/<n>/v1/chat/completions` gets <n> chat chunks and then
// `data: [DONE]`, written at once. The per-chunk cost the bench measures is then the SDK's own
// (socket reads, SSE parsing, JSON, iteration); the fixtures' loopback server paces events 15 ms
// apart, which would make that cost the pace.
import http from 'node:http';
import { openaiChunks } from './stream-chunks.ts';

const bodies = new Map<number, Buffer>();
function body(count: number): Buffer {
  let cached = bodies.get(count);
  if (cached === undefined) {
    const events = openaiChunks(count).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
    cached = Buffer.from([...events, 'data: [DONE]\n\n'].join(''));
    bodies.set(count, cached);
  }
  return cached;
}

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const count = Number(/^\/chunks\/(\d+)\//.exec(request.url ?? '')?.[1] ?? Number.NaN);
    if (!(count >= 2)) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no stream at ${request.url}` } }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.end(body(count));
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ port: typeof address === 'object' && address !== null ? address.port : 0 });
});
process.on('message', (message: { kind: string }) => {
  if (message.kind !== 'close') return;
  server.closeAllConnections();
  server.close(() => process.disconnect());
});
