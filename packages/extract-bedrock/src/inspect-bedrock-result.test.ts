import { InvokeModelCommand, type InvokeModelCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { TAXONOMY } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenario,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FAMILIES, type ModelFamily } from '../test/bedrock-model-families.ts';
import { clientFor } from '../test/bedrock-sdk-harness.ts';
import { withClassifiedErrors } from './index.ts';
import { detectBedrockBlockedAnswer, detectTruncatedInvokeModelBody } from './inspect-bedrock-result.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'h2c' });
});
afterAll(async () => {
  await server?.close();
});

/** The recorded cut-body scenario: its headers, and what a truncated body must be classified as. */
const cutBody = loadScenario('bedrock/invoke-model-cut-body');
const cutBodyHeaders = (cutBody.response as Extract<Scenario['response'], { kind: 'socket' }>).headers ?? {};

/** A 200 whose body stops after `partialBody`: the connection is dropped mid-body. */
const truncated = (partialBody: string): Pick<Scenario, 'response'> => ({
  response: { kind: 'socket', behaviour: 'cut-body', status: 200, headers: cutBodyHeaders, partialBody },
});
const whole = (body: string): Pick<Scenario, 'response'> => ({
  response: { kind: 'http', status: 200, headers: { 'content-type': 'application/json' }, body },
});

/** The family's body cut in the middle of its answer text. */
function cutInText(family: ModelFamily): string {
  const at = family.body.indexOf('Hello, world');
  expect(at, `${family.name}: the body carries the answer`).toBeGreaterThan(0);
  return family.body.slice(0, at + 'Hello'.length);
}

async function invoke(
  family: ModelFamily,
  scenario: Pick<Scenario, 'response'>,
  options: { inspectResult?: undefined } = {},
) {
  const client = clientFor(server.baseUrlFor(scenario), scenario);
  try {
    return await withClassifiedErrors<InvokeModelCommandOutput>(
      ({ signal }) =>
        client.send(
          new InvokeModelCommand({
            modelId: family.modelId,
            contentType: 'application/json',
            accept: 'application/json',
            body: JSON.stringify(family.request),
          }),
          { abortSignal: signal },
        ),
      { model: family.modelId, ...options },
    );
  } finally {
    client.destroy();
  }
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => error,
  );

describe('an InvokeModel body cut short, which the SDK returns as a success over h2, per model family', () => {
  it('the recorded cut-body scenario says what a truncated body is', () => {
    expect(cutBody.expected.reason).toBe('interrupted');
  });

  for (const family of MODEL_FAMILIES) {
    describe(family.name, () => {
      const partialBody = cutInText(family);

      it('the real SDK resolves with the truncated bytes', async () => {
        const result = await invoke(family, truncated(partialBody), { inspectResult: undefined });
        expect(result.$metadata.httpStatusCode).toBe(200);
        expect(new TextDecoder().decode(result.body)).toBe(partialBody);
      });

      it('the bound withClassifiedErrors turns it into interrupted, without the body in the report', async () => {
        const error = await rejection(invoke(family, truncated(partialBody)));
        expect(FaultlineError.isInstance(error), String(error)).toBe(true);
        const faultline = error as FaultlineError;
        expect(faultline.classification).toMatchObject({
          reason: cutBody.expected.reason,
          category: TAXONOMY[cutBody.expected.reason].category,
          retryable: TAXONOMY[cutBody.expected.reason].retryable,
        });
        expect(faultline.metadata).toMatchObject({
          provider: 'bedrock',
          origin: 'malformed_response',
          networkPhase: 'response_body',
          statusCode: cutBody.expected.statusCode,
        });
        const report = JSON.stringify(faultline.toErrorReport());
        expect(report).toContain(family.modelId);
        expect(report).not.toContain(partialBody.slice(-20));
      });

      it('a whole body passes through, unchanged', async () => {
        const result = await invoke(family, whole(family.body));
        expect(JSON.parse(new TextDecoder().decode(result.body))).toEqual(JSON.parse(family.body));
        expect(detectTruncatedInvokeModelBody(result)).toBeUndefined();
        expect(detectBedrockBlockedAnswer(result)).toBeUndefined();
      });
    });
  }

  it('a 200 cut before its first body byte (the SDK resolves with body null) is interrupted too', async () => {
    const family = MODEL_FAMILIES[0]!;
    const unguarded = await invoke(family, truncated(''), { inspectResult: undefined });
    expect(unguarded.$metadata.httpStatusCode).toBe(200);
    expect(unguarded.body).toBeNull();
    const error = await rejection(invoke(family, truncated('')));
    expect(FaultlineError.isInstance(error), JSON.stringify(error)).toBe(true);
    expect((error as FaultlineError).classification).toMatchObject({
      reason: cutBody.expected.reason,
      retryable: TAXONOMY[cutBody.expected.reason].retryable,
    });
  });
});

describe('an InvokeModel answer the model family or a guardrail withheld', () => {
  /** What a withheld answer is: the recorded guardrail scenario's classification. */
  const blocked = loadScenario('bedrock/converse-guardrail-intervened').expected;
  const family = (name: string) => MODEL_FAMILIES.find((candidate) => candidate.name === name)!;
  const edit = (name: string, change: (body: Record<string, unknown>) => Record<string, unknown>) =>
    JSON.stringify(change(JSON.parse(family(name).body) as Record<string, unknown>));
  const cases = [
    {
      name: 'a guardrail intervention ("amazon-bedrock-guardrailAction": "INTERVENED")',
      family: family('Meta Llama'),
      body: edit('Meta Llama', (body) => ({
        ...body,
        generation: 'Sorry, the model cannot answer this question.',
        'amazon-bedrock-guardrailAction': 'INTERVENED',
      })),
      blockReason: 'guardrail_intervened',
    },
    {
      name: 'Anthropic stop_reason refusal',
      family: family('Anthropic Claude (Messages)'),
      body: edit('Anthropic Claude (Messages)', (body) => ({ ...body, content: [], stop_reason: 'refusal' })),
      blockReason: 'refusal',
    },
    {
      name: 'Amazon Nova stopReason content_filtered',
      family: family('Amazon Nova'),
      body: edit('Amazon Nova', (body) => ({ ...body, stopReason: 'content_filtered' })),
      blockReason: 'content_filtered',
    },
    {
      name: 'Amazon Titan completionReason CONTENT_FILTERED',
      family: family('Amazon Titan Text'),
      body: edit('Amazon Titan Text', (body) => ({
        ...body,
        results: [{ tokenCount: 0, outputText: '', completionReason: 'CONTENT_FILTERED' }],
      })),
      blockReason: 'content_filtered',
    },
  ];
  for (const { name, family: model, body, blockReason } of cases) {
    it(`${name} is a withheld answer through the bound withClassifiedErrors, unless turned off`, async () => {
      const error = await rejection(invoke(model, whole(body)));
      expect(FaultlineError.isInstance(error), String(error)).toBe(true);
      expect((error as FaultlineError).classification).toMatchObject({
        reason: blocked.reason,
        category: TAXONOMY[blocked.reason].category,
        retryable: TAXONOMY[blocked.reason].retryable,
      });
      expect((error as FaultlineError).metadata).toMatchObject({ origin: 'blocked_response', blockReason });
      const off = await invoke(model, whole(body), { inspectResult: undefined });
      expect(new TextDecoder().decode(off.body)).toBe(body);
    });
  }
});
