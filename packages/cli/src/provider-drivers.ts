import type { Extractor } from '@faultline/classify';
import type { LoopbackProtocol } from '@faultline/llm-mock';
import type { BoundWithClassifiedErrors } from '@faultline/render/toolkit';

/** What a call needs to reach the loopback server and what it should ask for. */
export interface DriverCall {
  baseUrl: string;
  /** The scenario's `api` (e.g. `chat`, `responses`, `embeddings`, `converse`, `invoke`). */
  api?: string | undefined;
  stream?: boolean | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
}

/** The pieces of an `@faultline/extract-<provider>` package the CLI drives. */
export interface ProviderAdapter {
  extractor: Extractor;
  withClassifiedErrors: BoundWithClassifiedErrors;
}

export interface ProviderDriver {
  /** The scenario folder and the extractor's provider key. */
  key: string;
  /** The SDK package driven (also the `expectedBySdk` alias of its newest major). */
  sdkPackage: string;
  /** The extractor package. */
  adapterPackage: string;
  protocol: LoopbackProtocol;
  model: string;
  loadAdapter(): Promise<unknown>;
  /**
   * Loads the SDK ahead of the calls, so that no call's time limit pays for loading it (a large
   * ESM SDK such as @mistralai/mistralai can take seconds on a busy machine).
   */
  loadSdk(): Promise<unknown>;
  /** The SDK method a call with this `api`/`stream` uses (the report's `operation`). */
  operation(api: string | undefined, stream: boolean | undefined): string;
  /** Calls the real SDK at `baseUrl`, consuming a stream to its end. */
  call(call: DriverCall): Promise<unknown>;
}

const demoApiKey = 'demo-key-not-a-secret';
const prompt = 'Say hello.';

async function drain(stream: AsyncIterable<unknown>): Promise<number> {
  let chunks = 0;
  for await (const _chunk of stream) chunks += 1;
  return chunks;
}

const openaiDriver: ProviderDriver = {
  key: 'openai',
  sdkPackage: 'openai',
  adapterPackage: '@faultline/extract-openai',
  protocol: 'http1',
  model: 'gpt-4o-mini',
  loadAdapter: () => import('@faultline/extract-openai'),
  loadSdk: () => import('openai'),
  operation: (api, stream) =>
    api === 'embeddings'
      ? 'embeddings.create'
      : api === 'responses'
        ? 'responses.create'
        : `chat.completions.create${stream === true ? ' (stream)' : ''}`,
  async call({ baseUrl, api, stream, signal, timeoutMs }) {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ apiKey: demoApiKey, baseURL: baseUrl, maxRetries: 0, timeout: timeoutMs });
    if (api === 'embeddings') {
      return client.embeddings.create({ model: 'text-embedding-3-small', input: prompt }, { signal });
    }
    if (api === 'responses') {
      if (stream === true) {
        return drain(
          await client.responses.create({ model: 'gpt-4o-mini', input: prompt, stream: true }, { signal }),
        );
      }
      return client.responses.create({ model: 'gpt-4o-mini', input: prompt }, { signal });
    }
    const messages = [{ role: 'user' as const, content: prompt }];
    if (stream === true) {
      return drain(
        await client.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true }, { signal }),
      );
    }
    return client.chat.completions.create({ model: 'gpt-4o-mini', messages }, { signal });
  },
};

const groqDriver: ProviderDriver = {
  key: 'groq',
  sdkPackage: 'groq-sdk',
  adapterPackage: '@faultline/extract-groq',
  protocol: 'http1',
  model: 'llama-3.3-70b-versatile',
  loadAdapter: () => import('@faultline/extract-groq'),
  loadSdk: () => import('groq-sdk'),
  operation: (_api, stream) => `chat.completions.create${stream === true ? ' (stream)' : ''}`,
  async call({ baseUrl, stream, signal, timeoutMs }) {
    const { default: Groq } = await import('groq-sdk');
    const client = new Groq({ apiKey: demoApiKey, baseURL: baseUrl, maxRetries: 0, timeout: timeoutMs });
    const messages = [{ role: 'user' as const, content: prompt }];
    const model = 'llama-3.3-70b-versatile';
    if (stream === true) {
      return drain(await client.chat.completions.create({ model, messages, stream: true }, { signal }));
    }
    return client.chat.completions.create({ model, messages }, { signal });
  },
};

const anthropicDriver: ProviderDriver = {
  key: 'anthropic',
  sdkPackage: '@anthropic-ai/sdk',
  adapterPackage: '@faultline/extract-anthropic',
  protocol: 'http1',
  model: 'claude-sonnet-4-6',
  loadAdapter: () => import('@faultline/extract-anthropic'),
  loadSdk: () => import('@anthropic-ai/sdk'),
  operation: (_api, stream) => `messages.create${stream === true ? ' (stream)' : ''}`,
  async call({ baseUrl, stream, signal, timeoutMs }) {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ apiKey: demoApiKey, baseURL: baseUrl, maxRetries: 0, timeout: timeoutMs });
    const request = {
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user' as const, content: prompt }],
    };
    if (stream === true) {
      return drain(await client.messages.create({ ...request, stream: true }, { signal }));
    }
    return client.messages.create(request, { signal });
  },
};

const mistralDriver: ProviderDriver = {
  key: 'mistral',
  sdkPackage: '@mistralai/mistralai',
  adapterPackage: '@faultline/extract-mistral',
  protocol: 'http1',
  model: 'mistral-small-latest',
  loadAdapter: () => import('@faultline/extract-mistral'),
  loadSdk: () => import('@mistralai/mistralai'),
  operation: (api, stream) =>
    api === 'embeddings' ? 'embeddings.create' : stream === true ? 'chat.stream' : 'chat.complete',
  async call({ baseUrl, api, stream, signal, timeoutMs }) {
    const { Mistral } = await import('@mistralai/mistralai');
    const client = new Mistral({
      apiKey: demoApiKey,
      serverURL: baseUrl,
      timeoutMs,
      retryConfig: { strategy: 'none' },
    });
    const model = 'mistral-small-latest';
    if (api === 'embeddings') {
      return client.embeddings.create(
        { model: 'mistral-embed', inputs: [prompt] },
        { fetchOptions: { signal } },
      );
    }
    const messages = [{ role: 'user' as const, content: prompt }];
    if (stream === true) {
      return drain(await client.chat.stream({ model, messages }, { fetchOptions: { signal } }));
    }
    return client.chat.complete({ model, messages }, { fetchOptions: { signal } });
  },
};

const googleGenaiDriver: ProviderDriver = {
  key: 'google-genai',
  sdkPackage: '@google/genai',
  adapterPackage: '@faultline/extract-google-genai',
  protocol: 'http1',
  model: 'gemini-2.5-flash',
  loadAdapter: () => import('@faultline/extract-google-genai'),
  loadSdk: () => import('@google/genai'),
  operation: (api, stream) =>
    api === 'embeddings' || api === 'embedContent'
      ? 'models.embedContent'
      : stream === true
        ? 'models.generateContentStream'
        : 'models.generateContent',
  async call({ baseUrl, api, stream, signal, timeoutMs }) {
    const { GoogleGenAI } = await import('@google/genai');
    const client = new GoogleGenAI({ apiKey: demoApiKey, httpOptions: { baseUrl, timeout: timeoutMs } });
    const model = 'gemini-2.5-flash';
    if (api === 'embeddings' || api === 'embedContent') {
      return client.models.embedContent({
        model: 'text-embedding-004',
        contents: prompt,
        config: { abortSignal: signal },
      });
    }
    if (stream === true) {
      return drain(
        await client.models.generateContentStream({
          model,
          contents: prompt,
          config: { abortSignal: signal },
        }),
      );
    }
    return client.models.generateContent({ model, contents: prompt, config: { abortSignal: signal } });
  },
};

let bedrockWarningSilenced = false;

function isInvokeModel(api: string | undefined): boolean {
  return api !== undefined && /^invoke/i.test(api);
}

const bedrockDriver: ProviderDriver = {
  key: 'bedrock',
  sdkPackage: '@aws-sdk/client-bedrock-runtime',
  adapterPackage: '@faultline/extract-bedrock',
  protocol: 'h2c',
  model: 'anthropic.claude-3-haiku-20240307-v1:0',
  loadAdapter: () => import('@faultline/extract-bedrock'),
  loadSdk: () => import('@aws-sdk/client-bedrock-runtime'),
  operation: (api, stream) =>
    isInvokeModel(api) ? 'InvokeModel' : stream === true ? 'ConverseStream' : 'Converse',
  async call({ baseUrl, api, stream, signal, timeoutMs }) {
    if (!bedrockWarningSilenced) {
      // The SDK warns once per process that future releases need Node 22; not the demo's news.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      bedrockWarningSilenced = true;
    }
    const { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, InvokeModelCommand } = await import(
      '@aws-sdk/client-bedrock-runtime'
    );
    const client = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: baseUrl,
      maxAttempts: 1,
      credentials: { accessKeyId: 'AKIADEMODEMODEMODEMO', secretAccessKey: 'demo-secret-not-a-secret' },
      requestHandler: { requestTimeout: timeoutMs, connectionTimeout: timeoutMs },
    });
    const modelId = 'anthropic.claude-3-haiku-20240307-v1:0';
    try {
      if (isInvokeModel(api)) {
        return await client.send(
          new InvokeModelCommand({
            modelId,
            contentType: 'application/json',
            body: JSON.stringify({
              anthropic_version: 'bedrock-2023-05-31',
              max_tokens: 64,
              messages: [{ role: 'user', content: prompt }],
            }),
          }),
          { abortSignal: signal },
        );
      }
      const messages = [{ role: 'user' as const, content: [{ text: prompt }] }];
      if (stream === true) {
        const response = await client.send(new ConverseStreamCommand({ modelId, messages }), {
          abortSignal: signal,
        });
        return response.stream === undefined ? 0 : await drain(response.stream);
      }
      return await client.send(new ConverseCommand({ modelId, messages }), { abortSignal: signal });
    } finally {
      client.destroy();
    }
  },
};

/** One driver per provider, in the order the demo shows them. */
export const providerDrivers: readonly ProviderDriver[] = [
  openaiDriver,
  anthropicDriver,
  googleGenaiDriver,
  bedrockDriver,
  mistralDriver,
  groqDriver,
];

export function driverFor(key: string): ProviderDriver | undefined {
  return providerDrivers.find((driver) => driver.key === key);
}

function isExtractor(value: unknown): value is Extractor {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { extract?: unknown }).extract === 'function' &&
    typeof (value as { provider?: unknown }).provider === 'string'
  );
}

/**
 * The extractor and bound `withClassifiedErrors` of a provider package, found by shape (its
 * `<provider>Extractor` export), or undefined while the package does not provide them.
 */
export async function loadAdapter(driver: ProviderDriver): Promise<ProviderAdapter | undefined> {
  let moduleExports: Record<string, unknown>;
  try {
    moduleExports = (await driver.loadAdapter()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const withClassifiedErrors = moduleExports.withClassifiedErrors;
  if (typeof withClassifiedErrors !== 'function') return undefined;
  const extractor = Object.entries(moduleExports).find(
    ([name, value]) => name.endsWith('Extractor') && isExtractor(value),
  )?.[1] as Extractor | undefined;
  if (extractor === undefined) return undefined;
  return { extractor, withClassifiedErrors: withClassifiedErrors as BoundWithClassifiedErrors };
}
