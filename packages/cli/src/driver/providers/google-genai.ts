import { guardStream as guardGeminiStream } from '@faultline/extract-google-genai';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'gemini-2.5-flash';

/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['AIzaSyFaultlineCanary0000000000000000000'] as const;

/** @google/genai: models.generateContent(Stream), on the Gemini API or (api `vertex`) Vertex AI. */
export default defineDriver<typeof import('@google/genai')>({
  model,
  credentials,
  retryPolicies: { default: 'default', enabled: 'retryOptions (5 attempts)' },
  operation: (_api, stream) => (stream === true ? 'models.generateContentStream' : 'models.generateContent'),
  async call({ sdk, baseUrl, api, stream, signal, timeoutMs, sdkRetries, guard }) {
    const httpOptions = {
      baseUrl,
      timeout: timeoutMs,
      ...(sdkRetries === 'enabled' ? { retryOptions: { attempts: 5 } } : {}),
    };
    const apiKey = credentials[0];
    const client =
      api === 'vertex'
        ? new sdk.GoogleGenAI({ vertexai: true, apiKey, httpOptions })
        : new sdk.GoogleGenAI({ apiKey, httpOptions });
    const request = { model, contents: PROMPT, config: { abortSignal: signal } };
    if (stream === true)
      return drain(guardGeminiStream(await client.models.generateContentStream(request), guard));
    return client.models.generateContent(request);
  },
});
