import { guardStream as guardOllamaStream } from '@faultline/extract-ollama';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'llama3.2';

/** Canary credentials (ollama.com's bearer key): never real, and the reliability suite checks they reach no output. */
const credentials = ['faultlineCanaryOllamaKey0000000000'] as const;

/** The SDK method a scenario's `api` names: `chat` (the default), `generate` or `embed`. */
function methodOf(api: string | undefined): 'chat' | 'generate' | 'embed' {
  return api === 'embed' || api === 'generate' ? api : 'chat';
}

/**
 * ollama (ollama-js): chat, generate and embed. ollama-js has no timeout, retries or per-call
 * signal: the client is given a fetch that adds the call's deadline and signal to every request
 * (a stream's request keeps the SDK's own signal too, which the guard's release fires).
 */
export default defineDriver<typeof import('ollama')>({
  model,
  credentials,
  retryPolicies: { default: 'none (ollama-js does not retry)' },
  operation: (api, stream) => `${methodOf(api)}${stream === true ? ' (stream)' : ''}`,
  async call({ sdk, baseUrl, api, stream, signal, timeoutMs, guard }) {
    const fetchWithDeadline: typeof fetch = (input, init) => {
      const deadline = new AbortController();
      const timer = setTimeout(
        () => deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        timeoutMs,
      );
      timer.unref();
      const signals = [deadline.signal];
      if (init?.signal) signals.push(init.signal);
      if (signal !== undefined) signals.push(signal);
      return fetch(input, { ...init, signal: AbortSignal.any(signals) });
    };
    const client = new sdk.Ollama({
      host: baseUrl,
      fetch: fetchWithDeadline,
      headers: { authorization: `Bearer ${credentials[0]}` },
    });
    const method = methodOf(api);
    if (method === 'embed') return client.embed({ model: 'nomic-embed-text', input: PROMPT });
    if (method === 'generate') {
      if (stream !== true) return client.generate({ model, prompt: PROMPT, stream: false });
      return drain(guardOllamaStream(await client.generate({ model, prompt: PROMPT, stream: true }), guard));
    }
    const messages = [{ role: 'user', content: PROMPT }];
    if (stream !== true) return client.chat({ model, messages, stream: false });
    return drain(guardOllamaStream(await client.chat({ model, messages, stream: true }), guard));
  },
});
