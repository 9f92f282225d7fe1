import { Ollama } from 'ollama';
import { Ollama as OllamaV05 } from 'ollama-v05';

/** The part of the client the tests call (both majors alike). */
export interface OllamaClient {
  chat(request: object): Promise<unknown>;
  generate(request: object): Promise<unknown>;
  embed(request: object): Promise<unknown>;
}

/** Each supported major of ollama-js, by its devDependency alias. */
export const SDKS = [
  { alias: 'ollama', Ollama },
  { alias: 'ollama-v05', Ollama: OllamaV05 as unknown as typeof Ollama },
] as const;
export type Sdk = (typeof SDKS)[number];

/**
 * A client at `host`. ollama-js has no timeout, retries or per-call signal of its own: an app bounds
 * a call by giving the client a `fetch` that adds a deadline and its own signal to every request
 * (a stream's request keeps the SDK's signal too, which its iterator's `abort()` fires).
 */
export function clientOf(
  sdk: Sdk,
  host: string,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): OllamaClient {
  const fetchWithDeadline: typeof fetch = (input, init) => {
    // A controller and a timer, not AbortSignal.timeout: a timeout signal only held by
    // AbortSignal.any can be collected before it fires, leaving the request without a deadline.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      options.timeoutMs,
    );
    timer.unref();
    const signals = [deadline.signal];
    if (init?.signal) signals.push(init.signal);
    if (options.signal !== undefined) signals.push(options.signal);
    return fetch(input, { ...init, signal: AbortSignal.any(signals) });
  };
  return new sdk.Ollama({ host, fetch: fetchWithDeadline }) as unknown as OllamaClient;
}

/** The request of each API a scenario names (`chat`, `generate`, `embed`). */
export function callApi(client: OllamaClient, api: string | undefined, stream: boolean): Promise<unknown> {
  switch (api) {
    case 'generate':
      return client.generate({ model: 'llama3.2', prompt: 'SECRET-PROMPT hello', stream });
    case 'embed':
      return client.embed({ model: 'nomic-embed-text', input: 'SECRET-PROMPT hello', truncate: false });
    default:
      return client.chat({
        model: 'llama3.2',
        messages: [{ role: 'user', content: 'SECRET-PROMPT hello' }],
        stream,
      });
  }
}
