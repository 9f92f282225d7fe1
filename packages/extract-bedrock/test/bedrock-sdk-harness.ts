import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { clientTimeoutFor, type Scenario } from '@faultline/test-fixtures';

/** The supported SDK majors, by devDependency alias (package.json). */
export const SDK_ALIASES = ['@aws-sdk/client-bedrock-runtime'] as const;

/** AWS's documented example keys: never real. */
export const FAKE_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

/** A client for `scenario`, whose own timeout (`requestTimeout`) is the scenario's client timeout. */
export function clientFor(endpoint: string, scenario: Pick<Scenario, 'response'>): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    endpoint,
    region: 'us-east-1',
    credentials: FAKE_CREDENTIALS,
    maxAttempts: 1,
    requestHandler: { requestTimeout: clientTimeoutFor(scenario) },
  });
}

const MESSAGES = [{ role: 'user' as const, content: [{ text: 'Say hello.' }] }];
export const MODEL_ID = 'anthropic.claude-3-haiku-20240307-v1:0';

/** One AWS event-stream message, as the loopback server sends it. */
export interface EventStreamMessage {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: string;
}

/** A ConverseStream event frame (`:event-type` is the ConverseStreamOutput member). */
export function converseEvent(type: string, payload: unknown): EventStreamMessage {
  return {
    headers: { ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' },
    payload: JSON.stringify(payload),
  };
}

/**
 * An InvokeModelWithResponseStream `chunk` frame: a `PayloadPart` whose `bytes` (base64 on the
 * wire, a Uint8Array once the SDK decoded it) carry the model family's own JSON.
 */
export function invokeStreamChunk(json: unknown): EventStreamMessage {
  return {
    headers: { ':message-type': 'event', ':event-type': 'chunk', ':content-type': 'application/json' },
    payload: JSON.stringify({ bytes: Buffer.from(JSON.stringify(json), 'utf8').toString('base64') }),
  };
}

/** Clients opened by the stream helpers below; `destroyStreamClients()` closes them (afterAll). */
const streamClients = new Set<BedrockRuntimeClient>();

/** A client whose own timeout (`requestTimeout`, an idle timeout on h2) is `timeoutMs`. */
function streamClientFor(endpoint: string, timeoutMs: number): BedrockRuntimeClient {
  const client = new BedrockRuntimeClient({
    endpoint,
    region: 'us-east-1',
    credentials: FAKE_CREDENTIALS,
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeoutMs },
  });
  streamClients.add(client);
  return client;
}

export function destroyStreamClients(): void {
  for (const client of streamClients) client.destroy();
  streamClients.clear();
}

export interface StreamCall {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

/** ConverseStream with the real SDK: its `response.stream`. */
export async function openConverseStream(
  endpoint: string,
  call: StreamCall = {},
): Promise<AsyncIterable<unknown>> {
  const response = await streamClientFor(endpoint, call.timeoutMs ?? 60_000).send(
    new ConverseStreamCommand({ modelId: MODEL_ID, messages: MESSAGES }),
    { abortSignal: call.signal },
  );
  if (response.stream === undefined) throw new Error('ConverseStream answered without a stream');
  return response.stream;
}

/** InvokeModelWithResponseStream with the real SDK: its `response.body`. */
export async function openInvokeModelStream(
  endpoint: string,
  call: StreamCall = {},
  model: { readonly modelId: string; readonly request: unknown } = {
    modelId: MODEL_ID,
    request: {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hello.' }],
    },
  },
): Promise<AsyncIterable<unknown>> {
  const response = await streamClientFor(endpoint, call.timeoutMs ?? 60_000).send(
    new InvokeModelWithResponseStreamCommand({
      modelId: model.modelId,
      contentType: 'application/json',
      accept: 'application/json',
      body: JSON.stringify(model.request),
    }),
    { abortSignal: call.signal },
  );
  if (response.body === undefined) throw new Error('InvokeModelWithResponseStream answered without a body');
  return response.body;
}

export type CallOutcome =
  | { kind: 'threw'; error: unknown; events: string[] }
  | { kind: 'resolved'; result: unknown; events: string[] };

/** Runs the scenario's API against the real SDK and reports what it threw (or returned). */
export async function callScenario(
  scenario: Scenario,
  endpoint: string,
  options: { abortSignal?: AbortSignal } = {},
): Promise<CallOutcome> {
  const client = clientFor(endpoint, scenario);
  const events: string[] = [];
  try {
    if (scenario.api === 'invoke-model') {
      const result = await client.send(
        new InvokeModelCommand({
          modelId: MODEL_ID,
          contentType: 'application/json',
          accept: 'application/json',
          body: JSON.stringify({
            anthropic_version: 'bedrock-2023-05-31',
            max_tokens: 64,
            messages: [{ role: 'user', content: 'Say hello.' }],
          }),
        }),
        options,
      );
      return { kind: 'resolved', result, events };
    }
    if (scenario.api === 'converse-stream') {
      const response = await client.send(
        new ConverseStreamCommand({ modelId: MODEL_ID, messages: MESSAGES }),
        options,
      );
      for await (const event of response.stream ?? []) events.push(Object.keys(event)[0] ?? '?');
      return { kind: 'resolved', result: response, events };
    }
    const result = await client.send(new ConverseCommand({ modelId: MODEL_ID, messages: MESSAGES }), options);
    return { kind: 'resolved', result, events };
  } catch (error) {
    return { kind: 'threw', error, events };
  } finally {
    client.destroy();
  }
}
