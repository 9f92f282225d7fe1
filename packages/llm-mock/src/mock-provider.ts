import { createHash } from 'node:crypto';
import { classify, type FailureReason, TAXONOMY } from '@faultline/classify';
import { type RoutedAnswer, type RoutedRequest, startServer, unresolvableHost } from './loopback-server.ts';
import { checkMockProviderKeys } from './option-keys.ts';
import {
  defaultMessage,
  isProviderKey,
  PROVIDERS,
  type ProviderFormat,
  type ProviderKey,
  providerFormat,
  type RequestShape,
} from './providers.ts';
import { RateLimitState, rateLimitHeaders } from './rate-limit.ts';
import { loadScenario, type Scenario, type ScenarioLoadOptions, type ScenarioResponse } from './scenario.ts';
import { type Chaos, parseScript, type Script, type Step, seededRandom } from './script.ts';
import { type Verdict, type VerdictOptions, verdict } from './verdict.ts';

export interface MockProviderOptions {
  /** The providers to answer as (default: all six). Each gets its own path prefix, see `url()`. */
  providers?: readonly ProviderKey[];
  /** The port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** The text of healthy answers (default "Hello from llm-mock."). */
  reply?: string;
  /** Scripts to install at start, per provider. */
  scripts?: Partial<Record<ProviderKey, Script | Step[]>>;
  /** Where catalogue scenarios are read from (default: the catalogue this package ships). */
  catalogue?: ScenarioLoadOptions;
  /** Called with each request's record as it arrives (a throwing listener is ignored). */
  onRequest?: (request: MockRequest) => void;
}

/** What the mock answered one request with. */
export interface AnswerRecord {
  kind: Step['kind'] | 'not-found';
  /** A short description: `ok`, `status 429 (retry-after 1 s)`, `openai/insufficient-quota`, `stream cut after 2 chunks`. */
  label: string;
  /** Where the answer came from. */
  source: 'script' | 'chaos' | 'default';
  scenarioId?: string | undefined;
  status?: number | undefined;
  /** The taxonomy reason of the failure (undefined for a healthy answer). */
  reason?: FailureReason | undefined;
  /** Whether the taxonomy says a retry can fix it (false for healthy answers). */
  retryable: boolean;
  /** The wait the answer asked for (Retry-After header, or the provider's body). */
  retryAfterSeconds?: number | undefined;
  /** Content chunks a stream delivered before it failed. */
  deliveredChunks: number;
  /** True when the answer leaves the client waiting forever (a stall before or during a stream). */
  stalls: boolean;
  latencyMs: number;
}

/** One request the mock received. */
export interface MockRequest {
  /** 1-based arrival order across the server. */
  index: number;
  provider: ProviderKey;
  /** Arrival time (ms since the epoch). */
  time: number;
  method: string;
  /** The path after the provider prefix (e.g. `/v1/chat/completions`). */
  path: string;
  operation?: RequestShape['operation'] | undefined;
  stream: boolean;
  model?: string | undefined;
  /** Lowercased headers; credentials (Authorization, x-api-key, ...) are `[redacted]`. */
  headers: Record<string, string>;
  bodyBytes: number;
  /** sha256 of method, path and body: equal for the attempts of one call (the SDK re-sends the same body). */
  fingerprint: string;
  answer: AnswerRecord;
  /** When the answer started (after its latency). */
  answeredAt: number;
  /** When the response was over (ended by the mock, or released by the client); undefined while open. */
  readonly closedAt?: number | undefined;
}

export interface MockProvider {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  readonly providers: readonly ProviderKey[];
  /**
   * The base URL to give the provider's SDK (`baseURL`, `serverURL`, `httpOptions.baseUrl`,
   * `endpoint`): `<origin>/openai/v1`, `<origin>/anthropic`, `<origin>/google-genai`,
   * `<origin>/bedrock`, `<origin>/mistral`, `<origin>/groq`.
   */
  url(provider?: ProviderKey): string;
  /** A base URL whose connection is refused, or whose host never resolves (the connection-level failures). */
  unreachableUrl(kind: 'refused' | 'dns'): string;
  /** Appends steps to the provider's queue (a bare step list, or a script with `chaos`/`reply`). */
  script(provider: ProviderKey, script: Script | readonly Step[]): MockProvider;
  script(script: Script | readonly Step[]): MockProvider;
  /** Requests the queue does not cover fail with this seeded probability. */
  chaos(provider: ProviderKey, chaos: Chaos): MockProvider;
  /** Steps still queued for the provider. */
  pending(provider?: ProviderKey): number;
  /** Every request so far (or one provider's), in arrival order. */
  requests(provider?: ProviderKey): MockRequest[];
  /** Drops the steps still queued and the chaos (of one provider, or all); keeps the record. */
  clearScript(provider?: ProviderKey): void;
  /** Forgets the queues, chaos and records. */
  reset(): void;
  /** What the client did against the retry contract (see `verdict`). */
  verdict(options?: VerdictOptions): Verdict;
  close(): Promise<void>;
}

const defaultReply = 'Hello from llm-mock.';
const redactedHeaders = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'x-amz-security-token',
]);

function redact(headers: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    result[name] = redactedHeaders.has(name) ? '[redacted]' : value;
  }
  return result;
}

function piecesOf(reply: string, count?: number): string[] {
  const words = reply.split(/(?=\s)/).filter((word) => word.length > 0);
  const pieces = words.length > 0 ? words : [reply];
  if (count === undefined) return pieces;
  return Array.from({ length: count }, (_, index) => pieces[index % pieces.length]!);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Content-bearing events of a catalogue stream before its failure (its last event, when it ends). */
function deliveredByScenario(response: ScenarioResponse): number {
  const content = (text: string) => /"(text|content|delta)"/.test(text) && !/"error"/.test(text);
  if (response.kind === 'sse') {
    const events = response.then === 'end' ? response.events.slice(0, -1) : response.events;
    return events.filter((event) => content(event.data)).length;
  }
  if (response.kind === 'ndjson') {
    const lines = response.then === 'end' ? response.lines.slice(0, -1) : response.lines;
    return lines.filter((line) => content(line)).length;
  }
  if (response.kind === 'aws-event-stream') {
    const messages = response.then === 'end' ? response.messages.slice(0, -1) : response.messages;
    return messages.filter((message) => content(message.payload)).length;
  }
  return 0;
}

function stallsByScenario(response: ScenarioResponse): boolean {
  return (
    (response.kind === 'socket' && response.behaviour === 'never-answer') ||
    ((response.kind === 'sse' || response.kind === 'ndjson' || response.kind === 'aws-event-stream') &&
      response.then === 'stall')
  );
}

/** The response with `headers` added (answers that have headers: HTTP and streams). */
function withHeaders(response: ScenarioResponse, headers: Record<string, string>): ScenarioResponse {
  if (response.kind === 'http' || response.kind === 'sse' || response.kind === 'aws-event-stream')
    return { ...response, headers: { ...response.headers, ...headers } };
  return response;
}

interface Compiled {
  response: ScenarioResponse;
  answer: Omit<AnswerRecord, 'source' | 'latencyMs'>;
}

/** Starts the mock on 127.0.0.1: HTTP/1.1 and h2c (what the Bedrock SDK speaks) on one port. */
export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  checkMockProviderKeys(options);
  const providers = [...(options.providers ?? PROVIDERS)];
  if (providers.length === 0) throw new Error('startMockProvider: name at least one provider');
  for (const provider of providers) {
    if (!isProviderKey(provider)) {
      throw new Error(
        `startMockProvider: unknown provider "${String(provider)}" (one of ${PROVIDERS.join(', ')})`,
      );
    }
  }
  const queues = new Map<ProviderKey, Step[]>();
  const chaosByProvider = new Map<ProviderKey, { chaos: Chaos; random: () => number }>();
  const replies = new Map<ProviderKey, string>();
  const limits = new Map<ProviderKey, RateLimitState>();
  const records: MockRequest[] = [];
  const scenarioCache = new Map<string, Scenario>();

  const scenarioFor = (id: string, provider: ProviderKey): Scenario => {
    let scenario = scenarioCache.get(id);
    if (scenario === undefined) {
      scenario = loadScenario(id, options.catalogue);
      scenarioCache.set(id, scenario);
    }
    if (scenario.provider !== provider) {
      throw new Error(`llm-mock: scenario ${id} is a ${scenario.provider} answer, scripted for ${provider}`);
    }
    const { response } = scenario;
    if (response.kind === 'dns-failure' || (response.kind === 'socket' && response.behaviour === 'refuse')) {
      throw new Error(
        `llm-mock: scenario ${id} fails before a connection exists; point the client at mock.unreachableUrl('${
          response.kind === 'dns-failure' ? 'dns' : 'refused'
        }') instead of scripting it`,
      );
    }
    return scenario;
  };

  const validate = (provider: ProviderKey, steps: readonly Step[]) => {
    for (const step of steps) if (step.kind === 'scenario') scenarioFor(step.id, provider);
  };

  const compile = (
    step: Step,
    format: ProviderFormat,
    shape: RequestShape,
    provider: ProviderKey,
  ): Compiled => {
    const reply = replies.get(provider) ?? options.reply ?? defaultReply;
    switch (step.kind) {
      case 'ok':
        return {
          response: format.answer(shape, piecesOf(step.reply ?? reply), 'end'),
          answer: { kind: 'ok', label: 'ok', retryable: false, deliveredChunks: 0, stalls: false },
        };
      case 'scenario': {
        const scenario = scenarioFor(step.id, provider);
        return {
          response: scenario.response,
          answer: {
            kind: 'scenario',
            label: scenario.id,
            scenarioId: scenario.id,
            status: 'status' in scenario.response ? scenario.response.status : undefined,
            reason: scenario.expected.reason,
            retryable: scenario.expected.retryable,
            retryAfterSeconds: scenario.expected.retryAfterSeconds,
            deliveredChunks: deliveredByScenario(scenario.response),
            stalls: stallsByScenario(scenario.response),
          },
        };
      }
      case 'status': {
        const message = step.message ?? defaultMessage(step.status);
        const built = format.error(step.status, message, step.retryAfter);
        const response: ScenarioResponse =
          built.kind === 'http'
            ? {
                ...built,
                headers: { ...built.headers, ...step.headers },
                body: step.body ?? built.body,
              }
            : built;
        const classification = classify({
          provider,
          message,
          origin: 'http',
          statusCode: step.status,
          retryAfterSeconds: step.retryAfter,
        });
        return {
          response,
          answer: {
            kind: 'status',
            label: `status ${step.status}${step.retryAfter === undefined ? '' : ` (retry-after ${step.retryAfter} s)`}`,
            status: step.status,
            reason: classification.reason,
            retryable: classification.retryable,
            retryAfterSeconds: step.retryAfter,
            deliveredChunks: 0,
            stalls: false,
          },
        };
      }
      case 'stream': {
        const streaming = { ...shape, stream: true };
        const reason: FailureReason = step.then === 'error' ? 'server_error' : 'interrupted';
        return {
          response: format.answer(streaming, piecesOf(reply, step.afterChunks), step.then),
          answer: {
            kind: 'stream',
            label: `stream ${step.then} after ${step.afterChunks} chunk${step.afterChunks === 1 ? '' : 's'}`,
            reason: step.then === 'stall' ? 'timeout' : reason,
            retryable: TAXONOMY[step.then === 'stall' ? 'timeout' : reason].retryable,
            deliveredChunks: step.afterChunks,
            stalls: step.then === 'stall',
          },
        };
      }
      case 'stall':
        return {
          response: { kind: 'socket', behaviour: 'never-answer' },
          answer: {
            kind: 'stall',
            label: 'stall (no answer)',
            reason: 'timeout',
            retryable: true,
            deliveredChunks: 0,
            stalls: true,
          },
        };
      case 'reset':
        return {
          response: { kind: 'socket', behaviour: 'reset-after-request' },
          answer: {
            kind: 'reset',
            label: 'connection reset',
            reason: 'interrupted',
            retryable: false,
            deliveredChunks: 0,
            stalls: false,
          },
        };
      case 'cut': {
        const whole = format.answer({ ...shape, stream: false }, piecesOf(reply), 'end');
        const body = whole.kind === 'http' ? whole.body : '{}';
        return {
          response: {
            kind: 'socket',
            behaviour: 'cut-body',
            status: step.status ?? 200,
            headers: {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
            },
            partialBody: body.slice(0, Math.floor(body.length / 2)),
          },
          answer: {
            kind: 'cut',
            label: 'body cut',
            reason: 'interrupted',
            retryable: false,
            deliveredChunks: 0,
            stalls: false,
          },
        };
      }
    }
  };

  const nextStep = (provider: ProviderKey): { step: Step; source: AnswerRecord['source'] } => {
    const queue = queues.get(provider);
    const head = queue?.[0];
    if (queue !== undefined && head !== undefined) {
      if ((head.times ?? 1) > 1) queue[0] = { ...head, times: (head.times ?? 1) - 1 };
      else queue.shift();
      return { step: head, source: 'script' };
    }
    const chaos = chaosByProvider.get(provider);
    if (chaos !== undefined && chaos.random() < chaos.chaos.probability) {
      const faults = chaos.chaos.faults;
      return { step: faults[Math.floor(chaos.random() * faults.length)]!, source: 'chaos' };
    }
    return { step: { kind: 'ok' }, source: 'default' };
  };

  const route = (request: RoutedRequest): RoutedAnswer => {
    const time = Date.now();
    const [, first, rest] = /^\/([^/?]+)(.*)$/.exec(request.path) ?? [];
    let provider: ProviderKey;
    let path: string;
    if (first !== undefined && isProviderKey(first) && providers.includes(first)) {
      provider = first;
      path = rest === undefined || rest === '' ? '/' : rest;
    } else if (providers.length === 1) {
      provider = providers[0]!;
      path = request.path;
    } else {
      return {
        response: {
          kind: 'http',
          status: 404,
          body: JSON.stringify({
            error: {
              message: `llm-mock: ${request.method} ${request.path} names no provider; use a base URL from mock.url(provider) (${providers.join(', ')})`,
              type: 'not_found',
            },
          }),
        },
      };
    }
    const format = providerFormat(provider);
    const shape = format.parse(path, parseJson(request.body));
    let compiled: Compiled;
    let source: AnswerRecord['source'] = 'default';
    let latencyMs = 0;
    if (shape === undefined) {
      compiled = {
        response: format.error(404, `llm-mock (${provider}): no such route ${request.method} ${path}`),
        answer: {
          kind: 'not-found',
          label: 'no such route',
          status: 404,
          reason: 'not_found',
          retryable: false,
          deliveredChunks: 0,
          stalls: false,
        },
      };
    } else {
      const limit = limits.get(provider);
      const window = limit === undefined ? undefined : limit.take(time);
      if (window !== undefined && !window.admitted) {
        const retryAfter = Math.ceil(window.resetMs / 1000);
        const message = 'Rate limit reached for requests. Please try again shortly.';
        const built = format.error(429, message, retryAfter);
        compiled = {
          response: withHeaders(built, rateLimitHeaders(provider, window, time)),
          answer: {
            kind: 'status',
            label: `rate limit 429 (retry-after ${retryAfter} s)`,
            status: 429,
            reason: 'rate_limit',
            retryable: true,
            retryAfterSeconds: retryAfter,
            deliveredChunks: 0,
            stalls: false,
          },
        };
      } else {
        const next = nextStep(provider);
        source = next.source;
        latencyMs = next.step.latencyMs ?? 0;
        compiled = compile(next.step, format, shape, provider);
        if (window !== undefined)
          compiled = {
            ...compiled,
            response: withHeaders(compiled.response, rateLimitHeaders(provider, window, time)),
          };
      }
    }
    let closedAt: number | undefined;
    const record: MockRequest = {
      index: records.length + 1,
      provider,
      time,
      method: request.method,
      path,
      operation: shape?.operation,
      stream: shape?.stream ?? false,
      model: shape?.model,
      headers: redact(request.headers),
      bodyBytes: request.bodyBytes,
      fingerprint: createHash('sha256').update(`${request.method}\n${path}\n${request.body}`).digest('hex'),
      answer: { ...compiled.answer, source, latencyMs },
      answeredAt: time + latencyMs,
    };
    Object.defineProperty(record, 'closedAt', { get: () => closedAt, enumerable: true });
    request.onClose(() => {
      closedAt ??= Date.now();
    });
    records.push(record);
    try {
      options.onRequest?.(record);
    } catch {
      // A listener's failure is its own; the client still gets its answer.
    }
    return { response: compiled.response, latencyMs };
  };

  const server = await startServer({ protocol: 'auto', port: options.port, router: route });

  const mock: MockProvider = {
    origin: server.origin,
    port: server.port,
    providers,
    url(provider) {
      const key = provider ?? (providers.length === 1 ? providers[0] : undefined);
      if (key === undefined || !providers.includes(key)) {
        throw new Error(`llm-mock: url() needs one of ${providers.join(', ')}`);
      }
      return `${server.origin}/${key}${providerFormat(key).sdkBasePath}`;
    },
    unreachableUrl(kind) {
      if (kind === 'dns') return `http://${unresolvableHost}`;
      return server.baseUrlFor({ response: { kind: 'socket', behaviour: 'refuse' } });
    },
    script(first: ProviderKey | Script | readonly Step[], second?: Script | readonly Step[]) {
      let provider: ProviderKey;
      let input: unknown;
      if (typeof first === 'string') {
        provider = first;
        input = second;
      } else {
        if (providers.length !== 1)
          throw new Error('llm-mock: script(steps) without a provider needs a one-provider mock');
        provider = providers[0]!;
        input = first;
      }
      if (!providers.includes(provider))
        throw new Error(`llm-mock: this mock does not answer as ${provider}`);
      const script = parseScript(input);
      validate(provider, script.steps ?? []);
      if (script.chaos !== undefined) mock.chaos(provider, script.chaos);
      if (script.reply !== undefined) replies.set(provider, script.reply);
      if (script.rateLimit !== undefined)
        limits.set(provider, new RateLimitState(script.rateLimit, Date.now()));
      const queue = queues.get(provider) ?? [];
      queue.push(...(script.steps ?? []));
      queues.set(provider, queue);
      return mock;
    },
    chaos(provider, chaos) {
      const parsed = parseScript({ chaos }).chaos!;
      validate(provider, parsed.faults);
      chaosByProvider.set(provider, { chaos: parsed, random: seededRandom(parsed.seed ?? 1) });
      return mock;
    },
    pending(provider) {
      const keys = provider === undefined ? providers : [provider];
      return keys.reduce(
        (sum, key) => sum + (queues.get(key) ?? []).reduce((count, step) => count + (step.times ?? 1), 0),
        0,
      );
    },
    requests(provider) {
      return records.filter((record) => provider === undefined || record.provider === provider);
    },
    clearScript(provider) {
      for (const key of provider === undefined ? providers : [provider]) {
        queues.delete(key);
        chaosByProvider.delete(key);
        limits.delete(key);
      }
    },
    reset() {
      queues.clear();
      chaosByProvider.clear();
      limits.clear();
      replies.clear();
      records.length = 0;
    },
    verdict(verdictOptions) {
      return verdict(records, verdictOptions);
    },
    close: () => server.close(),
  };
  for (const [provider, script] of Object.entries(options.scripts ?? {})) {
    if (script !== undefined) mock.script(provider as ProviderKey, script);
  }
  return mock;
}
