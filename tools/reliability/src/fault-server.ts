import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';

/** One answer of the fault server. */
export type FaultStep =
  | {
      readonly kind: 'respond';
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly body: string;
    }
  /** Reads the whole request, then destroys the socket: the request was written, no answer came. */
  | { readonly kind: 'reset' }
  /** Reads the request and never answers (until the client gives up or the server closes). */
  | { readonly kind: 'stall' };

export interface FaultRoute {
  /** The base URL an SDK should use (a fresh path prefix per route). */
  readonly baseUrl: string;
  /** Requests this route has received, with their arrival time (`performance.now()`). */
  readonly arrivals: readonly number[];
}

export interface FaultServer {
  readonly origin: string;
  /**
   * A route that answers its n-th request with `steps[n]`, and every request after the last
   * step with the last step.
   */
  route(steps: readonly FaultStep[]): FaultRoute;
  /** Sockets currently open (for leak checks). */
  openSockets(): number;
  close(): Promise<void>;
}

/**
 * A small loopback HTTP server for the retry-loop tests: each route plays a *sequence* of answers
 * (fail N times, then succeed; answer Retry-After; reset after the request was written; stall),
 * and counts the requests it received. test-fixtures' server replays one scenario per route.
 */
export async function startFaultServer(): Promise<FaultServer> {
  const routes = new Map<string, { steps: readonly FaultStep[]; arrivals: number[] }>();
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    const match = /^\/f\/([A-Za-z0-9_-]+)/.exec(request.url ?? '');
    const route = match ? routes.get(match[1]!) : undefined;
    request.resume();
    request.on('end', () => {
      if (route === undefined) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"no fault route"}}');
        return;
      }
      const index = route.arrivals.length;
      route.arrivals.push(performance.now());
      const step = route.steps[Math.min(index, route.steps.length - 1)]!;
      switch (step.kind) {
        case 'respond':
          response.writeHead(step.status, {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(step.body)),
            ...step.headers,
          });
          response.end(step.body);
          return;
        case 'reset':
          request.socket.destroy();
          return;
        case 'stall':
          return;
      }
    });
  });
  server.keepAliveTimeout = 500;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  const origin = `http://127.0.0.1:${address.port}`;
  let closing: Promise<void> | undefined;
  return {
    origin,
    route(steps) {
      if (steps.length === 0) throw new Error('a fault route needs at least one step');
      const token = randomBytes(6).toString('base64url');
      const arrivals: number[] = [];
      routes.set(token, { steps, arrivals });
      return { baseUrl: `${origin}/f/${token}`, arrivals };
    },
    openSockets: () => sockets.size,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** A chat.completions success answer (openai, groq). */
export const OPENAI_SUCCESS: FaultStep = {
  kind: 'respond',
  status: 200,
  body: JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }),
};

/** A Messages API success answer (anthropic). */
export const ANTHROPIC_SUCCESS: FaultStep = {
  kind: 'respond',
  status: 200,
  body: JSON.stringify({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'hello' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  }),
};

export function openaiFailure(status: number, headers: Record<string, string> = {}): FaultStep {
  const type = status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : 'server_error';
  return {
    kind: 'respond',
    status,
    headers,
    body: JSON.stringify({ error: { message: `failure ${status}`, type, code: type } }),
  };
}

export function anthropicFailure(status: number, headers: Record<string, string> = {}): FaultStep {
  const type =
    status === 529
      ? 'overloaded_error'
      : status === 429
        ? 'rate_limit_error'
        : status === 401
          ? 'authentication_error'
          : 'api_error';
  return {
    kind: 'respond',
    status,
    headers,
    body: JSON.stringify({ type: 'error', error: { type, message: `failure ${status}` } }),
  };
}
