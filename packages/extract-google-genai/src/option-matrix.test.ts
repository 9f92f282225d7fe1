import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { type GenaiApi, MODEL, newClient, SDKS } from '../test/genai-harness.ts';
import { GOOGLE_GENAI_PROVIDER } from './extract-google-genai.ts';
import { guardGeminiStream } from './guard-google-genai.ts';
import { withClassifiedErrors } from './index.ts';

// Every documented option of withClassifiedErrors and of guardGeminiStream, through each installed
// major of @google/genai (models.generateContent on the Gemini API and Vertex AI, as each scenario
// records; no SDK retries unless `retryOptions` is given).

const PROMPT = 'Say hello';
const candidate = (text: string, finishReason?: string) =>
  JSON.stringify({
    candidates: [
      {
        content: { parts: [{ text }], role: 'model' },
        ...(finishReason === undefined ? {} : { finishReason }),
        index: 0,
      },
    ],
    modelVersion: MODEL,
  });
const apiOf = (api: string | undefined): GenaiApi => (api === 'vertex' ? 'vertex' : 'gemini');

optionMatrix({
  provider: GOOGLE_GENAI_PROVIDER,
  sdks: SDKS,
  sdkPackage: { name: '@google/genai', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.api === 'gemini' || scenario.api === 'vertex',
  call: (sdk, baseUrl, { scenario, signal, timeoutMs }) =>
    newClient(sdk, { api: apiOf(scenario.api), baseUrl, timeoutMs }).models.generateContent({
      model: MODEL,
      contents: PROMPT,
      config: signal === undefined ? {} : { abortSignal: signal },
    }),
  success: { api: 'gemini', response: { kind: 'http', status: 200, body: candidate('Hello', 'STOP') } },
  // genai throws the same DOMException AbortError for its own httpOptions.timeout and for a signal
  // given to it alone (same message, same stack, not the signal's reason): render's README says to
  // give the signal to faultline too.
  sdkOnlyAbortReadsAsTimeout: 'genai throws the same AbortError for its own timeout',
  sdkOnlyAbortRetryGap: {
    'genai-v1':
      'genai 1.x sends a request even with an already-aborted abortSignal, so the retry of what reads as its own timeout is sent and waits; give the signal to faultline too (README)',
  },
  withClassifiedErrors,
  stream: {
    name: 'models.generateContentStream() (Gemini API)',
    stalled: sseFrame([{ data: candidate('Hel') }, { data: candidate('lo') }], 'stall'),
    open: (sdk, baseUrl, { signal, timeoutMs }) =>
      newClient(sdk, { api: 'gemini', baseUrl, timeoutMs }).models.generateContentStream({
        model: MODEL,
        contents: PROMPT,
        config: { abortSignal: signal },
      }),
    guard: (stream, options) => guardGeminiStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
