import { randomBytes } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { Duplex } from 'node:stream';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { encodeEventStreamMessage } from './event-stream.ts';
import { BASE_URL_OPTION_KEYS, LOOPBACK_SERVER_OPTION_KEYS } from './option-keys.ts';
import type { Scenario, ScenarioResponse } from './scenario.ts';

/** The host used by `dns-failure` scenarios: `.invalid` never resolves (RFC 6761). */
export const unresolvableHost = 'no-such-host.invalid';

/** Recorded request bodies are cut at this many bytes. */
export const recordedBodyLimitBytes = 1024 * 1024;

/** Delay between two SSE events / event-stream frames, so clients see valid chunks first. */
export const streamEventDelayMilliseconds = 15;

export type LoopbackProtocol = 'http1' | 'h2c';

export interface LoopbackServerOptions {
  /** `http1` (default) or `h2c`: cleartext HTTP/2, which @aws-sdk/client-bedrock-runtime speaks. */
  protocol?: LoopbackProtocol;
  /**
   * Answer as a cross-origin API would, for SDKs running in a browser page: every response carries
   * `access-control-allow-origin: *` and exposes every header (Retry-After, x-request-id …), and a
   * preflight (`OPTIONS` with `access-control-request-method`) gets a 204 allowing any method and
   * header without reaching a scenario or being recorded. Off by default.
   */
  cors?: boolean;
}

export interface BaseUrlOptions {
  /** Appended after `/s/<token>`, e.g. `/v1` for SDKs whose base URL carries a version. */
  pathPrefix?: string;
}

export interface RecordedRequest {
  method: string;
  /** The full request path, including `/s/<token>` and the query string. */
  path: string;
  /** The path after `/s/<token>` (e.g. `/v1/chat/completions`). */
  subPath: string;
  /** Lowercased header names; HTTP/2 pseudo-headers are left out. */
  headers: Record<string, string>;
  /** The request body as UTF-8, cut at 1 MB. */
  body: string;
  /**
   * True once the response is over: ended by the server, or closed by the client (an SDK that
   * aborted its request). For a stalled stream, which the server never ends, it says whether the
   * client released the request. Updated live; not enumerable, so records compare as data.
   */
  readonly responseClosed?: boolean;
}

export interface LoopbackServer {
  readonly protocol: LoopbackProtocol;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Registers the scenario under a fresh token and returns the base URL an SDK should use. */
  baseUrlFor(scenario: Pick<Scenario, 'response'>, options?: BaseUrlOptions): string;
  /** Requests recorded for this scenario (every registration of it), in arrival order. */
  requests(scenario: Pick<Scenario, 'response'>): RecordedRequest[];
  /** Destroys every open socket, session and stream, then stops listening. Idempotent. */
  close(): Promise<void>;
}

/** Sent on every response when `cors` is on (see LoopbackServerOptions). */
const corsHeaders: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
};

/** One request/response pair, whatever the protocol. */
interface Exchange {
  readBody(): Promise<ReadBody>;
  respond(status: number, headers: Record<string, string>): void;
  write(chunk: string | Uint8Array): void;
  end(chunk?: string | Uint8Array): void;
  /** Drops the connection under this exchange (the TCP socket; for h2 the whole session). */
  destroyConnection(): void;
  readonly closed: boolean;
  /** Calls `listener` once the response is over (ended, destroyed or closed by the client). */
  onClose(listener: () => void): void;
}

interface Registration {
  scenario: Pick<Scenario, 'response'>;
  requests: RecordedRequest[];
  /** AWS event-stream frames, encoded when the scenario is registered so errors surface early. */
  frames?: Uint8Array[];
}

function lowercaseHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) result[name.toLowerCase()] = value;
  return result;
}

function guessContentType(body: string): string | undefined {
  if (body.length === 0) return undefined;
  const start = body.trimStart();
  if (start.startsWith('{') || start.startsWith('[')) return 'application/json';
  if (start.startsWith('<')) return 'text/html; charset=utf-8';
  return 'text/plain; charset=utf-8';
}

function formatSseEvent(event: { event?: string; data: string; id?: string }): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  for (const line of event.data.split(/\r?\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/**
 * A JSON error body of exactly `megabytes` MiB (built in memory, never stored), for
 * hostile-input tests: `{"error":{"message":"xxxx…","type":"server_error","code":"big_body"}}`.
 */
export function bigBody(megabytes: number): string {
  const size = Math.max(0, Math.floor(megabytes * 1024 * 1024));
  const prefix = '{"error":{"message":"';
  const suffix = '","type":"server_error","code":"big_body"}}';
  const padding = Math.max(0, size - prefix.length - suffix.length);
  return prefix + 'x'.repeat(padding) + suffix;
}

/** A duplex over `socket` whose readable side starts with `first` (bytes already read from it). */
function replaying(socket: net.Socket, first: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  duplex.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on('end', () => duplex.push(null));
  socket.on('close', () => duplex.destroy());
  return duplex;
}

async function findClosedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not allocate a port');
  return address.port;
}

interface ReadBody {
  /** The body as UTF-8, cut at `recordedBodyLimitBytes`. */
  text: string;
  /** Every byte received, including what was cut. */
  bytes: number;
}

function readStream(stream: NodeJS.ReadableStream): Promise<ReadBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve({ text: Buffer.concat(chunks).toString('utf8'), bytes });
    };
    stream.on('data', (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      if (kept < recordedBodyLimitBytes) {
        const part = buffer.subarray(0, recordedBodyLimitBytes - kept);
        chunks.push(part);
        kept += part.length;
      }
    });
    stream.on('end', finish);
    stream.on('close', finish);
    stream.on('error', finish);
  });
}

/** A request that no `/s/<token>` registration claims, handed to the server's router. */
export interface RoutedRequest {
  method: string;
  path: string;
  /** Lowercased header names; HTTP/2 pseudo-headers are left out. */
  headers: Record<string, string>;
  /** The body as UTF-8, cut at `recordedBodyLimitBytes`. */
  body: string;
  /** The body's full size in bytes. */
  bodyBytes: number;
  /** Calls `listener` once the response is over (ended by the server or released by the client). */
  onClose(listener: () => void): void;
}

/** What the router answers: a response of the scenario format, after an optional delay. */
export interface RoutedAnswer {
  response: ScenarioResponse;
  latencyMs?: number | undefined;
}

/** @internal Options of `startServer`, the engine under `startLoopbackServer` and `startMockProvider`. */
export interface ServerEngineOptions {
  /** `auto` serves HTTP/1.1 and h2c on one port, told apart by the client's first bytes. */
  protocol: LoopbackProtocol | 'auto';
  port?: number | undefined;
  router?: ((request: RoutedRequest) => RoutedAnswer) | undefined;
  /** See `LoopbackServerOptions.cors`. */
  cors?: boolean | undefined;
}

/**
 * Starts a loopback HTTP server on 127.0.0.1 (random port) that answers each registered
 * scenario with its recorded response. Routes by the `/s/<token>` path prefix.
 */
export function startLoopbackServer(options: LoopbackServerOptions = {}): Promise<LoopbackServer> {
  try {
    checkOptionKeys('startLoopbackServer', options, LOOPBACK_SERVER_OPTION_KEYS);
  } catch (error) {
    return Promise.reject(error);
  }
  return startServer({
    protocol: options.protocol ?? 'http1',
    cors: options.cors,
  }) as Promise<LoopbackServer>;
}

/** @internal The server engine; `protocol: 'auto'` and a `router` are what the mock provider adds. */
export async function startServer(
  options: ServerEngineOptions,
): Promise<Omit<LoopbackServer, 'protocol'> & { protocol: LoopbackProtocol | 'auto' }> {
  const protocol = options.protocol;
  const registrations = new Map<string, Registration>();
  const byScenario = new Map<object, Registration[]>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  let closing = false;
  let closePromise: Promise<void> | undefined;

  const later = (milliseconds: number, action: () => void) => {
    if (closing) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closing) action();
    }, milliseconds);
    timers.add(timer);
  };

  const handle = async (
    method: string,
    path: string,
    rawHeaders: Record<string, string>,
    exchange: Exchange,
  ) => {
    if (options.cors) {
      const respond = exchange.respond;
      exchange.respond = (status, headers) => respond(status, { ...headers, ...corsHeaders });
      if (method === 'OPTIONS' && rawHeaders['access-control-request-method'] !== undefined) {
        await exchange.readBody();
        exchange.respond(204, {
          'access-control-allow-methods': rawHeaders['access-control-request-method'],
          'access-control-allow-headers': rawHeaders['access-control-request-headers'] ?? '*',
          'access-control-max-age': '600',
        });
        exchange.end();
        return;
      }
    }
    const match = /^\/s\/([A-Za-z0-9_-]+)(.*)$/.exec(path);
    const registration = match ? registrations.get(match[1]!) : undefined;
    const { text: body, bytes: bodyBytes } = await exchange.readBody();
    if (closing || exchange.closed) return;
    if ((!registration || !match) && options.router !== undefined) {
      let routed: RoutedAnswer;
      try {
        routed = options.router({
          method,
          path,
          headers: rawHeaders,
          body,
          bodyBytes,
          onClose: (listener) => exchange.onClose(listener),
        });
      } catch (error) {
        failLoudly(error, exchange);
        return;
      }
      const play = () => {
        try {
          answer(routed.response, undefined, exchange);
        } catch (error) {
          failLoudly(error, exchange);
        }
      };
      if (routed.latencyMs !== undefined && routed.latencyMs > 0) later(routed.latencyMs, play);
      else play();
      return;
    }
    if (!registration || !match) {
      const text = JSON.stringify({
        error: {
          message: `faultline loopback server: no scenario registered for ${method} ${path}`,
          type: 'not_found',
        },
      });
      exchange.respond(404, { 'content-type': 'application/json' });
      exchange.end(text);
      return;
    }
    const record: RecordedRequest = { method, path, subPath: match[2] ?? '', headers: rawHeaders, body };
    let responseClosed = false;
    Object.defineProperty(record, 'responseClosed', { get: () => responseClosed, enumerable: false });
    exchange.onClose(() => {
      responseClosed = true;
    });
    registration.requests.push(record);
    try {
      answer(registration.scenario.response, registration.frames, exchange);
    } catch (error) {
      failLoudly(error, exchange);
    }
  };

  /** A bug in this server (or a router), never a scenario's answer: make it loud, not a hang. */
  const failLoudly = (error: unknown, exchange: Exchange) => {
    console.error('faultline loopback server failed to answer', error);
    exchange.respond(500, { 'content-type': 'application/json', 'x-faultline-loopback-error': 'true' });
    exchange.end(JSON.stringify({ error: { message: `faultline loopback server error: ${String(error)}` } }));
  };

  const streamThen = (then: 'end' | 'cut' | 'stall', exchange: Exchange) => {
    if (then === 'end') exchange.end();
    else if (then === 'cut') later(streamEventDelayMilliseconds, () => exchange.destroyConnection());
    // 'stall': keep the stream open and silent until close().
  };

  const writeSequence = (chunks: Array<string | Uint8Array>, exchange: Exchange, done: () => void) => {
    let index = 0;
    const next = () => {
      if (exchange.closed) return;
      if (index >= chunks.length) {
        done();
        return;
      }
      exchange.write(chunks[index]!);
      index += 1;
      later(streamEventDelayMilliseconds, next);
    };
    next();
  };

  const answer = (response: ScenarioResponse, encoded: Uint8Array[] | undefined, exchange: Exchange) => {
    switch (response.kind) {
      case 'http': {
        const headers = lowercaseHeaders(response.headers);
        const contentType = guessContentType(response.body);
        if (headers['content-type'] === undefined && contentType !== undefined)
          headers['content-type'] = contentType;
        if (headers['content-length'] === undefined)
          headers['content-length'] = String(Buffer.byteLength(response.body));
        exchange.respond(response.status, headers);
        exchange.end(response.body);
        return;
      }
      case 'sse': {
        const headers = {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          ...lowercaseHeaders(response.headers),
        };
        exchange.respond(response.status ?? 200, headers);
        writeSequence(response.events.map(formatSseEvent), exchange, () =>
          streamThen(response.then, exchange),
        );
        return;
      }
      case 'ndjson': {
        const headers = {
          'content-type': 'application/x-ndjson',
          ...lowercaseHeaders(response.headers),
        };
        exchange.respond(response.status ?? 200, headers);
        writeSequence(
          response.lines.map((line) => `${line}\n`),
          exchange,
          () => streamThen(response.then, exchange),
        );
        return;
      }
      case 'aws-event-stream': {
        const headers = {
          'content-type': 'application/vnd.amazon.eventstream',
          ...lowercaseHeaders(response.headers),
        };
        exchange.respond(response.status ?? 200, headers);
        const frames = [...(encoded ?? response.messages.map(encodeEventStreamMessage))];
        const last = frames.at(-1);
        if (response.then === 'cut' && response.cutMidMessage === true && last !== undefined) {
          frames[frames.length - 1] = last.subarray(0, Math.max(1, Math.floor(last.length / 2)));
        }
        writeSequence(frames, exchange, () => streamThen(response.then, exchange));
        return;
      }
      case 'socket': {
        switch (response.behaviour) {
          case 'never-answer':
            return;
          case 'reset-after-request':
            exchange.destroyConnection();
            return;
          case 'cut-body': {
            const headers = lowercaseHeaders(response.headers);
            const partialBody = response.partialBody ?? '';
            if (headers['content-type'] === undefined)
              headers['content-type'] = guessContentType(partialBody) ?? 'application/json';
            exchange.respond(response.status ?? 200, headers);
            if (partialBody.length > 0) exchange.write(partialBody);
            later(streamEventDelayMilliseconds, () => exchange.destroyConnection());
            return;
          }
          case 'refuse':
            // A client only reaches this server if it ignored the refused URL: drop it.
            exchange.destroyConnection();
            return;
        }
        return;
      }
      case 'dns-failure':
        exchange.destroyConnection();
        return;
    }
  };

  const createHttp1Server = (): http.Server => {
    const http1Server = http.createServer((request, response) => {
      let closed = false;
      const markClosed = () => {
        closed = true;
      };
      response.on('close', markClosed);
      const exchange: Exchange = {
        readBody: () => readStream(request),
        respond: (status, headers) => {
          if (!closed && !response.headersSent) response.writeHead(status, headers);
        },
        write: (chunk) => {
          if (!closed) response.write(chunk);
        },
        end: (chunk) => {
          if (!closed) response.end(chunk);
        },
        destroyConnection: () => request.socket.destroy(),
        get closed() {
          return closed;
        },
        onClose: (listener) => {
          if (closed) listener();
          else response.once('close', listener);
        },
      };
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined)
          headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      void handle(request.method ?? 'GET', request.url ?? '/', headers, exchange);
    });
    http1Server.keepAliveTimeout = 1000;
    http1Server.on('clientError', (_error, socket) => socket.destroy());
    return http1Server;
  };
  const createHttp2Server = (): http2.Http2Server => {
    const http2Server = http2.createServer();
    http2Server.on('session', (session: http2.ServerHttp2Session) => {
      if (closing) {
        session.destroy();
        return;
      }
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
      session.on('error', () => {});
    });
    http2Server.on('stream', (stream: http2.ServerHttp2Stream, requestHeaders: http2.IncomingHttpHeaders) => {
      stream.on('error', () => {});
      const exchange: Exchange = {
        readBody: () => readStream(stream),
        respond: (status, headers) => {
          if (!stream.destroyed && !stream.headersSent) {
            // Connection-specific headers are forbidden in HTTP/2.
            const { connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, ...rest } = headers;
            stream.respond({ ':status': status, ...rest });
          }
        },
        write: (chunk) => {
          if (!stream.destroyed) stream.write(chunk);
        },
        end: (chunk) => {
          if (!stream.destroyed) stream.end(chunk);
        },
        destroyConnection: () => stream.session?.destroy(),
        get closed() {
          return stream.destroyed || stream.closed;
        },
        onClose: (listener) => {
          if (stream.closed) listener();
          else stream.once('close', listener);
        },
      };
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(requestHeaders)) {
        if (name.startsWith(':') || value === undefined) continue;
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      const method = String(requestHeaders[':method'] ?? 'GET');
      const path = String(requestHeaders[':path'] ?? '/');
      void handle(method, path, headers, exchange);
    });
    http2Server.on('sessionError', () => {});
    return http2Server;
  };

  const http1Server = protocol === 'h2c' ? undefined : createHttp1Server();
  const http2Server = protocol === 'http1' ? undefined : createHttp2Server();
  let server: http.Server | http2.Http2Server | net.Server;
  if (protocol === 'auto') {
    // One port for both: an h2c client opens with the HTTP/2 connection preface ("PRI * HTTP/2.0"),
    // anything else is HTTP/1.1. The first bytes are put back before the socket is handed over.
    const preface = Buffer.from('PRI * HTTP/2.0');
    server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', (first: Buffer) => {
        socket.pause();
        const isHttp2 = first.subarray(0, preface.length).equals(preface.subarray(0, first.length));
        if (isHttp2) {
          // node:http2 reads a net.Socket's handle directly, past anything unshifted: hand it a
          // stream that replays the first bytes, then relays the socket.
          http2Server!.emit('connection', replaying(socket, first));
        } else {
          socket.unshift(first);
          http1Server!.emit('connection', socket);
          socket.resume();
        }
      });
    });
  } else {
    server = (http1Server ?? http2Server)!;
  }

  server.on('connection', (socket: net.Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('loopback server has no port');
  const port = address.port;
  const origin = `http://127.0.0.1:${port}`;
  const refusedPort = await findClosedPort();

  const register = (scenario: Pick<Scenario, 'response'>): string => {
    const token = randomBytes(9).toString('base64url');
    const registration: Registration = { scenario, requests: [] };
    if (scenario.response.kind === 'aws-event-stream') {
      registration.frames = scenario.response.messages.map(encodeEventStreamMessage);
    }
    registrations.set(token, registration);
    const list = byScenario.get(scenario) ?? [];
    list.push(registration);
    byScenario.set(scenario, list);
    return token;
  };

  return {
    protocol,
    port,
    origin,
    baseUrlFor(scenario, baseUrlOptions = {}) {
      checkOptionKeys('baseUrlFor', baseUrlOptions, BASE_URL_OPTION_KEYS);
      const pathPrefix = baseUrlOptions.pathPrefix ?? '';
      if (pathPrefix !== '' && !pathPrefix.startsWith('/')) {
        throw new Error(`pathPrefix must start with "/": ${pathPrefix}`);
      }
      const response = scenario.response;
      if (response.kind === 'dns-failure') return `http://${unresolvableHost}${pathPrefix}`;
      const token = register(scenario);
      if (response.kind === 'socket' && response.behaviour === 'refuse') {
        return `http://127.0.0.1:${refusedPort}/s/${token}${pathPrefix}`;
      }
      return `${origin}/s/${token}${pathPrefix}`;
    },
    requests(scenario) {
      return (byScenario.get(scenario) ?? []).flatMap((registration) => registration.requests);
    },
    close() {
      if (closePromise) return closePromise;
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      closePromise = new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
        http1Server?.closeAllConnections();
      });
      return closePromise;
    },
  };
}

/** Runs `fn` with a fresh loopback server and always closes it afterwards. */
export async function withLoopback<T>(
  fn: (server: LoopbackServer) => Promise<T> | T,
  options: LoopbackServerOptions = {},
): Promise<T> {
  checkOptionKeys('withLoopback', options, LOOPBACK_SERVER_OPTION_KEYS);
  const server = await startLoopbackServer(options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}
