import { FaultlineError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenario,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callScenario, clientFor, MODEL_ID } from '../test/bedrock-sdk-harness.ts';
import { withClassifiedErrors } from './index.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'h2c' });
});
afterAll(async () => {
  await server?.close();
});

async function send(scenario: Scenario, signal?: AbortSignal): Promise<unknown> {
  const { ConverseCommand, InvokeModelCommand } = await import('@aws-sdk/client-bedrock-runtime');
  const client = clientFor(server.baseUrlFor(scenario), scenario);
  try {
    return await withClassifiedErrors<unknown>(
      ({ signal: attemptSignal }) =>
        scenario.api === 'invoke-model'
          ? client.send(new InvokeModelCommand({ modelId: MODEL_ID, body: '{}' }), {
              abortSignal: attemptSignal,
            })
          : client.send(
              new ConverseCommand({
                modelId: MODEL_ID,
                messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
              }),
              { abortSignal: attemptSignal },
            ),
      { model: MODEL_ID, signal },
    );
  } finally {
    client.destroy();
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('withClassifiedErrors bound to the Bedrock extractor', () => {
  it('throws a FaultlineError whose cause is the SDK error, classified from it', async () => {
    const error = await rejection(send(loadScenario('bedrock/converse-throttling')));
    expect(FaultlineError.isInstance(error)).toBe(true);
    const faultline = error as FaultlineError;
    expect((faultline.cause as Error).name).toBe('ThrottlingException');
    expect(faultline.classification).toMatchObject({ reason: 'rate_limit', retryable: true });
    const report = faultline.toErrorReport();
    expect(report).toMatchObject({ provider: 'bedrock', model: MODEL_ID, reason: 'rate_limit' });
    expect(JSON.stringify(report)).not.toContain('AKIA');
  });

  it('turns a guardrail-blocked 200 Converse answer into content_policy', async () => {
    const error = await rejection(send(loadScenario('bedrock/converse-guardrail-intervened')));
    expect(FaultlineError.isInstance(error)).toBe(true);
    expect((error as FaultlineError).classification).toMatchObject({ reason: 'content_policy' });
  });

  it('turns an InvokeModel body cut short (returned as a success) into interrupted', async () => {
    const error = await rejection(send(loadScenario('bedrock/invoke-model-cut-body')));
    expect((error as FaultlineError).classification).toMatchObject({
      reason: 'interrupted',
      retryable: false,
    });
  });

  it('passes a complete answer through', async () => {
    const scenario = loadScenario('bedrock/converse-guardrail-intervened');
    const body = JSON.parse((scenario.response as { body: string }).body);
    const complete: Scenario = {
      ...scenario,
      response: {
        kind: 'http',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stopReason: 'end_turn' }),
      },
    };
    const result = (await send(complete)) as { stopReason: string };
    expect(result.stopReason).toBe('end_turn');
  });

  it("re-throws the caller's abort untouched", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const never = loadScenario('bedrock/converse-never-answer');
    const error = await rejection(send(never, controller.signal));
    expect(FaultlineError.isInstance(error)).toBe(false);
    expect((error as Error).name).toBe('AbortError');
  });

  it('the scenario harness and the bound wrapper agree on a transport failure', async () => {
    const refused = loadScenario('bedrock/converse-connection-refused');
    const outcome = await callScenario(refused, server.baseUrlFor(refused));
    expect(outcome.kind).toBe('threw');
    const error = await rejection(send(refused));
    expect((error as FaultlineError).classification).toMatchObject({ reason: 'connection', retryable: true });
  });
});

describe('configuration the SDK rejects before sending', () => {
  async function withoutAwsEnvironment<T>(run: () => Promise<T>): Promise<T> {
    const saved = { ...process.env };
    for (const key of Object.keys(process.env)) if (key.startsWith('AWS_')) delete process.env[key];
    process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/faultline/credentials';
    process.env.AWS_CONFIG_FILE = '/nonexistent/faultline/config';
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    try {
      return await run();
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  }

  async function converseWith(config: Record<string, unknown>): Promise<unknown> {
    const { BedrockRuntimeClient, ConverseCommand } = await import('@aws-sdk/client-bedrock-runtime');
    const client = new BedrockRuntimeClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1, ...config });
    try {
      return await rejection(
        withClassifiedErrors(() =>
          client.send(
            new ConverseCommand({
              modelId: MODEL_ID,
              messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
            }),
          ),
        ),
      );
    } finally {
      client.destroy();
    }
  }

  it('no credentials anywhere (CredentialsProviderError) is auth', async () => {
    const error = await withoutAwsEnvironment(() => converseWith({ region: 'us-east-1' }));
    expect(((error as FaultlineError).cause as Error).name).toBe('CredentialsProviderError');
    expect((error as FaultlineError).classification).toMatchObject({
      reason: 'auth',
      userAction: { kind: 'check_credentials' },
    });
    expect((error as FaultlineError).metadata?.provider).toBe('bedrock');
  });

  it('no region ("Region is missing") is an endpoint configuration error', async () => {
    const error = await withoutAwsEnvironment(() =>
      converseWith({ credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'example' } }),
    );
    expect(((error as FaultlineError).cause as Error).message).toBe('Region is missing');
    expect((error as FaultlineError).classification).toMatchObject({
      reason: 'endpoint',
      retryable: false,
      userAction: { kind: 'check_configuration' },
    });
  });
});
