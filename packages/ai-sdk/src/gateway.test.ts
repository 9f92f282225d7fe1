import { readFileSync } from 'node:fs';
import { createGateway } from '@ai-sdk/gateway';
import { toErrorReport } from '@faultline/render';
import { type LoopbackServer, repoRoot, type Scenario, startLoopbackServer } from '@faultline/test-fixtures';
import { generateText } from 'ai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAiSdkError } from './classify-ai-sdk-error.ts';

// The Vercel AI Gateway through its own provider (@ai-sdk/gateway, what `ai` resolves a model id
// string to), against the loopback server answering the gateway's error bodies. The bodies and their
// labels are the corpus's (corpus/cases/vercel-ai-gateway.json): one home for what each must be.
const KEY = 'vck_GatewayCanaryKey0123456789abcdef';

interface GatewayCase {
  name: string;
  http: { status: number; body: unknown };
  label: { category: string; reason: string; retryable: boolean };
}
const corpus = JSON.parse(readFileSync(`${repoRoot}corpus/cases/vercel-ai-gateway.json`, 'utf8')) as {
  cases: GatewayCase[];
};

const answer = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Pick<Scenario, 'response'> => ({
  response: {
    kind: 'http',
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  },
});

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

async function failureOf(scenario: Pick<Scenario, 'response'>) {
  const model = createGateway({ baseURL: `${server.baseUrlFor(scenario)}/v3/ai`, apiKey: KEY })(
    'openai/gpt-4o-mini',
  );
  const thrown = await generateText({ model, prompt: 'hello', maxRetries: 0 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown, 'the call must fail').toBeDefined();
  return { thrown, report: toErrorReport(classifyAiSdkError(thrown, { provider: model.provider })) };
}

describe('the Vercel AI Gateway through @ai-sdk/gateway', () => {
  for (const entry of corpus.cases)
    it(`${entry.name}: ${entry.label.reason}`, async () => {
      const scenario = answer(entry.http.status, entry.http.body);
      const { thrown, report } = await failureOf(scenario);
      // What the gateway provider throws: its own class, not the AI SDK's APICallError.
      expect((thrown as Error).name).toMatch(/^Gateway[A-Za-z]*Error$/);
      expect(report).toMatchObject({
        category: entry.label.category,
        reason: entry.label.reason,
        retryable: entry.label.retryable,
      });
      expect(JSON.stringify(report)).not.toContain('GatewayCanaryKey');
      expect(server.requests(scenario)).toHaveLength(1);
    });

  it("a rate limit keeps the gateway's Retry-After", async () => {
    const { report } = await failureOf(
      answer(
        429,
        { error: { message: 'Rate limit exceeded. Try again later.', type: 'rate_limit_exceeded' } },
        {
          'retry-after': '7',
        },
      ),
    );
    expect(report).toMatchObject({ reason: 'rate_limit', retryAfterSeconds: 7 });
  });

  it('a gateway that cannot be reached is a connection failure, not the gateway class it is wrapped in', async () => {
    const { thrown, report } = await failureOf({ response: { kind: 'socket', behaviour: 'refuse' } });
    expect((thrown as Error).name).toBe('GatewayResponseError');
    expect(report.reason).toBe('connection');
  });
});
