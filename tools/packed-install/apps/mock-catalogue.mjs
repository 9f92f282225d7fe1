// A user's app, installed from npm: @faultline/llm-mock scripts every failure of its catalogue,
// the real SDKs call it, and each provider's faultline adapter classifies what the SDK threw.
// Only the packages' public API is used. Prints one JSON line: per provider, how many scenarios
// were driven and every mismatch (a classification other than the scenario's `expected`, a step
// the mock did not answer, a failure that did not fail).
import Anthropic from '@anthropic-ai/sdk';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
} from '@aws-sdk/client-bedrock-runtime';
import * as anthropicAdapter from '@faultline/extract-anthropic';
import * as bedrockAdapter from '@faultline/extract-bedrock';
import * as cohereAdapter from '@faultline/extract-cohere';
import * as geminiAdapter from '@faultline/extract-google-genai';
import * as groqAdapter from '@faultline/extract-groq';
import * as huggingfaceAdapter from '@faultline/extract-huggingface';
import * as mistralAdapter from '@faultline/extract-mistral';
import * as ollamaAdapter from '@faultline/extract-ollama';
import * as openaiAdapter from '@faultline/extract-openai';
import * as openrouterAdapter from '@faultline/extract-openrouter';
import { expectedFor, loadScenarios, PROVIDERS, startMockProvider } from '@faultline/llm-mock';
import { FaultlineError } from '@faultline/render';
import { GoogleGenAI } from '@google/genai';
import { InferenceClient } from '@huggingface/inference';
import { HTTPClient, Mistral } from '@mistralai/mistralai';
import { OpenRouter, HTTPClient as OpenRouterHTTPClient } from '@openrouter/sdk';
import { CohereClientV2 } from 'cohere-ai';
import Groq from 'groq-sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';

const timeout = Number(process.env.FAULTLINE_SDK_TIMEOUT_MS ?? 2_000);
const prompt = 'Say hello.';
const messages = [{ role: 'user', content: prompt }];

/** @param {AsyncIterable<unknown>} stream */
async function drain(stream) {
  let chunks = 0;
  for await (const _chunk of stream) chunks += 1;
  return chunks;
}

/**
 * How an app calls each SDK (SDK retries off: faultline's wrapper owns them), its streams read
 * through the adapter's stream guard (SDK timeouts do not cover a stream that stalls).
 * @type {Record<string, { adapter: any, call(scenario: any, baseUrl: string, signal: AbortSignal): Promise<unknown> }>}
 */
const apps = {
  openai: {
    adapter: openaiAdapter,
    async call(scenario, baseURL, signal) {
      const client = new OpenAI({ apiKey: 'sk-packed-install', baseURL, maxRetries: 0, timeout });
      const request = { model: 'gpt-4o-mini', messages };
      if (!scenario.stream) return client.chat.completions.create(request, { signal });
      const stream = await client.chat.completions.create({ ...request, stream: true }, { signal });
      return drain(openaiAdapter.guardOpenAIStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  groq: {
    adapter: groqAdapter,
    async call(scenario, baseURL, signal) {
      const client = new Groq({ apiKey: 'gsk_packed_install', baseURL, maxRetries: 0, timeout });
      const request = { model: 'llama-3.3-70b-versatile', messages };
      if (!scenario.stream) return client.chat.completions.create(request, { signal });
      const stream = await client.chat.completions.create({ ...request, stream: true }, { signal });
      return drain(groqAdapter.guardGroqStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  anthropic: {
    adapter: anthropicAdapter,
    async call(scenario, baseURL, signal) {
      const client = new Anthropic({ apiKey: 'sk-ant-packed-install', baseURL, maxRetries: 0, timeout });
      const request = { model: 'claude-sonnet-4-6', max_tokens: 64, messages };
      if (!scenario.stream) return client.messages.create(request, { signal });
      const stream = await client.messages.create({ ...request, stream: true }, { signal });
      return drain(anthropicAdapter.guardAnthropicStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  mistral: {
    adapter: mistralAdapter,
    async call(scenario, serverURL, signal) {
      // The fetcher hands fetch the caller's signal itself (see the extract-mistral README: the SDK's
      // cloned Request can lose an abort after a garbage collection).
      const httpClient = new HTTPClient({ fetcher: (input, init) => fetch(input, { ...init, signal }) });
      const client = new Mistral({
        apiKey: 'packed-install-mistral-key',
        serverURL,
        timeoutMs: timeout,
        httpClient,
      });
      const request = { model: 'mistral-small-latest', messages };
      if (!scenario.stream) return client.chat.complete(request, { fetchOptions: { signal } });
      const stream = await client.chat.stream(request, { fetchOptions: { signal } });
      return drain(mistralAdapter.guardMistralStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  ollama: {
    adapter: ollamaAdapter,
    async call(scenario, host, signal) {
      // ollama-js has no timeout or per-call signal: both go on the fetch its client is given.
      const fetchWithSignal = (input, init) =>
        fetch(input, { ...init, signal: AbortSignal.any([signal, ...(init?.signal ? [init.signal] : [])]) });
      const client = new Ollama({ host, fetch: fetchWithSignal });
      if (scenario.api === 'embed') return client.embed({ model: 'nomic-embed-text', input: prompt });
      if (scenario.api === 'generate') {
        const request = { model: 'llama3.2', prompt };
        if (!scenario.stream) return client.generate({ ...request, stream: false });
        const stream = await client.generate({ ...request, stream: true });
        return drain(ollamaAdapter.guardStream(stream, { idleTimeoutMs: timeout, signal }));
      }
      if (!scenario.stream) return client.chat({ model: 'llama3.2', messages, stream: false });
      const stream = await client.chat({ model: 'llama3.2', messages, stream: true });
      return drain(ollamaAdapter.guardStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  cohere: {
    adapter: cohereAdapter,
    async call(scenario, baseUrl, signal) {
      const client = new CohereClientV2({
        token: 'co-packed-install',
        baseUrl,
        maxRetries: 0,
        timeoutInSeconds: timeout / 1000,
      });
      const options = { abortSignal: signal };
      if (scenario.api === 'embed') {
        const request = {
          model: 'embed-v4.0',
          texts: [prompt],
          inputType: 'search_document',
          embeddingTypes: ['float'],
        };
        return client.embed(request, options);
      }
      const request = { model: 'command-a-03-2025', messages };
      if (!scenario.stream) return client.chat(request, options);
      const stream = await client.chatStream(request, options);
      return drain(cohereAdapter.guardStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  huggingface: {
    adapter: huggingfaceAdapter,
    async call(scenario, endpointUrl, signal) {
      // No timeout of its own (the signal bounds the call); a 503 is re-sent without end unless told not to.
      const client = new InferenceClient('hf_packedInstall', { endpointUrl, retry_on_error: false, signal });
      const model = 'meta-llama/Llama-3.1-8B-Instruct';
      if (scenario.api === 'textGeneration') return client.textGeneration({ model, inputs: prompt });
      if (scenario.api === 'featureExtraction') return client.featureExtraction({ model, inputs: prompt });
      if (!scenario.stream) return client.chatCompletion({ model, messages });
      const controller = new AbortController();
      const stream = client.chatCompletionStream(
        { model, messages },
        { signal: AbortSignal.any([signal, controller.signal]) },
      );
      return drain(
        huggingfaceAdapter.guardStream(stream, {
          idleTimeoutMs: timeout,
          signal,
          onAbandon: () => controller.abort(),
        }),
      );
    },
  },
  openrouter: {
    adapter: openrouterAdapter,
    async call(scenario, serverURL, signal) {
      // As the extract-openrouter README says: the SDK's retries off (on by default), the signal
      // handed to fetch by the fetcher (the SDK's cloned Request can lose an abort after a GC).
      const httpClient = new OpenRouterHTTPClient({
        fetcher: (input, init) => fetch(input, { ...init, signal }),
      });
      const client = new OpenRouter({
        apiKey: 'sk-or-v1-packed-install',
        serverURL,
        timeoutMs: timeout,
        httpClient,
        retryConfig: { strategy: 'none' },
      });
      const model = 'openai/gpt-4o-mini';
      if (!scenario.stream) return client.chat.send({ chatRequest: { model, messages } }, { signal });
      const stream = await client.chat.send({ chatRequest: { model, messages, stream: true } }, { signal });
      return drain(openrouterAdapter.guardStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  'google-genai': {
    adapter: geminiAdapter,
    async call(scenario, baseUrl, signal) {
      const vertex = scenario.api === 'vertex' ? { vertexai: true } : {};
      const client = new GoogleGenAI({
        ...vertex,
        apiKey: 'AIzaPackedInstall',
        httpOptions: { baseUrl, timeout },
      });
      const request = { model: 'gemini-2.5-flash', contents: prompt, config: { abortSignal: signal } };
      if (!scenario.stream) return client.models.generateContent(request);
      const stream = await client.models.generateContentStream(request);
      return drain(geminiAdapter.guardGeminiStream(stream, { idleTimeoutMs: timeout, signal }));
    },
  },
  bedrock: {
    adapter: bedrockAdapter,
    async call(scenario, endpoint, signal) {
      const client = new BedrockRuntimeClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIAPACKEDINSTALL000', secretAccessKey: 'packed/install/secret' },
        maxAttempts: 1,
        requestHandler: { requestTimeout: timeout },
      });
      try {
        const modelId = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
        if (scenario.api === 'invoke-model') {
          const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages });
          return await client.send(
            new InvokeModelCommand({ modelId, body, contentType: 'application/json' }),
            {
              abortSignal: signal,
            },
          );
        }
        const converse = { modelId, messages: [{ role: 'user', content: [{ text: prompt }] }] };
        if (!scenario.stream && scenario.api !== 'converse-stream')
          return await client.send(new ConverseCommand(converse), { abortSignal: signal });
        const response = await client.send(new ConverseStreamCommand(converse), { abortSignal: signal });
        if (response.stream === undefined) return 0;
        return await drain(
          bedrockAdapter.guardBedrockStream(response.stream, { idleTimeoutMs: timeout, signal }),
        );
      } finally {
        client.destroy();
      }
    },
  },
};

/** The failures that happen before a connection exists are not scripted: the client goes elsewhere. */
function unreachable(scenario) {
  const response = scenario.response;
  if (response.kind === 'dns-failure') return 'dns';
  if (response.kind === 'socket' && response.behaviour === 'refuse') return 'refused';
  return undefined;
}

/** Every scenario of one provider, one after the other, on a mock of its own. */
async function driveProvider(provider) {
  const app = apps[provider];
  if (app === undefined)
    return { provider, driven: 0, mismatches: [`${provider}: this app has no SDK call`] };
  const mock = await startMockProvider({ providers: [provider] });
  const mismatches = [];
  let driven = 0;
  try {
    for (const scenario of loadScenarios(provider)) {
      mock.reset();
      const where = unreachable(scenario);
      if (where === undefined) mock.script(provider, [{ kind: 'scenario', id: scenario.id }]);
      const baseUrl = where === undefined ? mock.url(provider) : mock.unreachableUrl(where);
      let thrown;
      try {
        await app.adapter.withClassifiedErrors(({ signal }) => app.call(scenario, baseUrl, signal), {
          retry: false,
          deadlineMs: timeout * 4,
        });
      } catch (error) {
        thrown = error;
      }
      driven += 1;
      if (where === undefined) {
        const answered = mock.requests(provider).map((request) => request.answer.scenarioId);
        if (answered[0] !== scenario.id)
          mismatches.push(`${scenario.id}: the mock answered ${answered.join(', ') || 'nothing'}`);
        if (mock.pending(provider) !== 0) mismatches.push(`${scenario.id}: the step was not consumed`);
      }
      const expected = expectedFor(scenario);
      if (expected.skip !== undefined) continue;
      if (!FaultlineError.isInstance(thrown)) {
        mismatches.push(
          `${scenario.id}: ${thrown === undefined ? 'succeeded' : `not classified: ${thrown}`}`,
        );
        continue;
      }
      const report = thrown.toErrorReport();
      for (const key of ['category', 'reason', 'retryable', 'httpStatus']) {
        if (report[key] !== expected[key])
          mismatches.push(`${scenario.id}: ${key} ${report[key]}, expected ${expected[key]}`);
      }
    }
  } finally {
    await mock.close();
  }
  return { provider, driven, mismatches };
}

console.log(JSON.stringify(await Promise.all(PROVIDERS.map(driveProvider))));
