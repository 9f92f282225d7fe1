import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
} from '@aws-sdk/client-bedrock-runtime';
import type { Scenario } from '@faultline/test-fixtures';

/** The supported SDK majors, by devDependency alias (package.json). */
export const SDK_ALIASES = ['@aws-sdk/client-bedrock-runtime'] as const;

/** AWS's documented example keys: never real. */
export const FAKE_CREDENTIALS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

/** Short enough for the never-answer scenario, long enough for the 15 ms frame gaps. */
export const REQUEST_TIMEOUT_MS = 400;

export function clientFor(endpoint: string): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    endpoint,
    region: 'us-east-1',
    credentials: FAKE_CREDENTIALS,
    maxAttempts: 1,
    requestHandler: { requestTimeout: REQUEST_TIMEOUT_MS },
  });
}

const MESSAGES = [{ role: 'user' as const, content: [{ text: 'Say hello.' }] }];
export const MODEL_ID = 'anthropic.claude-3-haiku-20240307-v1:0';

export type CallOutcome =
  | { kind: 'threw'; error: unknown; events: string[] }
  | { kind: 'resolved'; result: unknown; events: string[] };

/** Runs the scenario's API against the real SDK and reports what it threw (or returned). */
export async function callScenario(
  scenario: Scenario,
  endpoint: string,
  options: { abortSignal?: AbortSignal } = {},
): Promise<CallOutcome> {
  const client = clientFor(endpoint);
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
