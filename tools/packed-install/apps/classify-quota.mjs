// The one classification every runtime runs: the real openai SDK, installed from the registry,
// calls a loopback server that answers 429 insufficient_quota; the packed @faultline/extract-openai
// must classify it as `quota` and must not retry it (the driver counts the requests the server saw).
import { withClassifiedErrors } from '@faultline/extract-openai';
import { FaultlineError, toDict } from '@faultline/render';
import OpenAI from 'openai';

/** @param {string} baseURL */
export async function classifyQuota(baseURL) {
  const client = new OpenAI({
    baseURL,
    apiKey: 'sk-packed-install',
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
  });
  try {
    await withClassifiedErrors(
      ({ signal }) =>
        client.chat.completions.create(
          { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
          { signal },
        ),
      { model: 'gpt-4o-mini', retry: { maxAttempts: 3 } },
    );
    return { outcome: 'answered' };
  } catch (error) {
    if (!FaultlineError.isInstance(error)) return { outcome: 'raw', error: String(error) };
    const cause = /** @type {any} */ (error).cause;
    return {
      outcome: 'classified',
      sdkError: cause?.constructor?.name,
      sdkStatus: cause?.status,
      report: toDict(error.toErrorReport()),
    };
  }
}
