import { type LoopbackServer, type Scenario, startLoopbackServer } from '@faultline/llm-mock';
import { type ErrorReport, toErrorReport } from '@faultline/render';
import type { DemoResult } from './demo-command.ts';

/**
 * The demo's AI SDK rows: for each provider, one representative scenario driven again
 * through the Vercel AI SDK (`ai` with `@ai-sdk/<provider>`, `maxRetries: 0`) and classified with
 * `@faultline/ai-sdk`; the row must agree with the provider's own SDK row on category, reason and
 * retryable. The AI SDK packages are imported only when the rows run.
 */

/** What marks a row as driven through the AI SDK (the `via` of its JSON row). */
export const AI_SDK_VIA = 'ai-sdk';

/** The demo labels tried, in order, for a provider's representative scenario. */
export const AI_SDK_LABELS = ['rate limit', 'overload'] as const;

const demoApiKey = 'demo-key-not-a-secret';
const prompt = 'Say hello.';

/** The AI SDK's language model for a provider, pointed at the loopback server (`baseUrl` from `baseUrlFor`). */
interface AiSdkModelFactory {
  /** The `@ai-sdk/*` package. */
  readonly sdkPackage: string;
  create(baseUrl: string): Promise<unknown>;
}

const MODELS: Readonly<Record<string, AiSdkModelFactory>> = {
  openai: {
    sdkPackage: '@ai-sdk/openai',
    async create(baseUrl) {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: demoApiKey }).chat('gpt-4o-mini');
    },
  },
  anthropic: {
    sdkPackage: '@ai-sdk/anthropic',
    async create(baseUrl) {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: demoApiKey })('claude-sonnet-4-6');
    },
  },
  'google-genai': {
    sdkPackage: '@ai-sdk/google',
    async create(baseUrl) {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      return createGoogleGenerativeAI({ baseURL: `${baseUrl}/v1beta`, apiKey: demoApiKey })(
        'gemini-2.5-flash',
      );
    },
  },
  bedrock: {
    sdkPackage: '@ai-sdk/amazon-bedrock',
    async create(baseUrl) {
      const { createAmazonBedrock } = await import('@ai-sdk/amazon-bedrock');
      return createAmazonBedrock({
        baseURL: baseUrl,
        region: 'us-east-1',
        accessKeyId: 'AKIADEMODEMODEMODEMO',
        secretAccessKey: 'demo-secret-not-a-secret',
      })('anthropic.claude-3-5-haiku-20241022-v1:0');
    },
  },
  mistral: {
    sdkPackage: '@ai-sdk/mistral',
    async create(baseUrl) {
      const { createMistral } = await import('@ai-sdk/mistral');
      return createMistral({ baseURL: `${baseUrl}/v1`, apiKey: demoApiKey })('mistral-small-latest');
    },
  },
  groq: {
    sdkPackage: '@ai-sdk/groq',
    async create(baseUrl) {
      const { createGroq } = await import('@ai-sdk/groq');
      return createGroq({ baseURL: `${baseUrl}/openai/v1`, apiKey: demoApiKey })('llama-3.3-70b-versatile');
    },
  },
  // OpenRouter's own AI SDK provider (not an @ai-sdk/* package): `openrouter.chat`.
  openrouter: {
    sdkPackage: '@openrouter/ai-sdk-provider',
    async create(baseUrl) {
      const { createOpenRouter } = await import('@openrouter/ai-sdk-provider');
      return createOpenRouter({ baseURL: `${baseUrl}/api/v1`, apiKey: demoApiKey }).chat(
        'openai/gpt-4o-mini',
      );
    },
  },
};

/** The providers the AI SDK has a package for, whose rows the demo replays through it. */
export const AI_SDK_PROVIDERS: readonly string[] = Object.freeze(Object.keys(MODELS));

/** The provider's row whose scenario the AI SDK replays: the first of `AI_SDK_LABELS` that ran cleanly. */
export function pickAiSdkRow(rows: readonly DemoResult[]): DemoResult | undefined {
  for (const label of AI_SDK_LABELS) {
    const row = rows.find((candidate) => candidate.label === label && candidate.problems.length === 0);
    if (row !== undefined) return row;
  }
  return undefined;
}

/** Where the AI SDK row and the provider-SDK row disagree (category, reason, retryable). */
export function disagreements(sdkReport: ErrorReport, aiSdkReport: ErrorReport): string[] {
  const problems: string[] = [];
  for (const key of ['category', 'reason', 'retryable'] as const) {
    if (sdkReport[key] !== aiSdkReport[key]) {
      problems.push(
        `through the AI SDK ${key} is ${JSON.stringify(aiSdkReport[key])}, through the provider's SDK ${JSON.stringify(sdkReport[key])}`,
      );
    }
  }
  return problems;
}

async function driveThroughAiSdk(
  factory: AiSdkModelFactory,
  scenario: Scenario,
  server: LoopbackServer,
  timeoutMs: number,
): Promise<{ report: ErrorReport; problems: string[] }> {
  const [{ generateText, streamText }, { classifyAiSdkError, guardAiSdkStream }] = await Promise.all([
    import('ai'),
    import('@faultline/ai-sdk'),
  ]);
  // The six factories return each package's own LanguageModel type; `ai` accepts them all.
  const model = (await factory.create(server.baseUrlFor(scenario))) as any;
  const provider = String(model.provider);
  try {
    if (scenario.stream === true) {
      const result = streamText({ model, prompt, maxRetries: 0, onError: () => undefined });
      for await (const _part of guardAiSdkStream(result.fullStream, { provider, idleTimeoutMs: timeoutMs })) {
        // drained: a failure surfaces as a thrown error from the guard
      }
    } else {
      await generateText({ model, prompt, maxRetries: 0, abortSignal: AbortSignal.timeout(timeoutMs) });
    }
  } catch (error) {
    return { report: classifyAiSdkError(error, { provider }).toErrorReport(), problems: [] };
  }
  return {
    report: toErrorReport(undefined),
    problems: ['the AI SDK call succeeded, but the scenario is a failure'],
  };
}

/**
 * One AI SDK row per provider of `results` (the demo's provider-SDK rows) that the AI SDK has a
 * model for, each placed after its provider's rows. Such a provider with no representative row
 * gets a problem.
 */
export async function withAiSdkRows(
  results: readonly DemoResult[],
  scenarios: readonly Scenario[],
  timeoutMs: number,
): Promise<{ results: DemoResult[]; problems: string[] }> {
  const providers = [...new Set(results.map((result) => result.provider))];
  const problems: string[] = [];
  const rows = new Map<string, DemoResult>();
  const server = await startLoopbackServer({ protocol: 'http1' });
  try {
    await Promise.all(
      providers.map(async (provider) => {
        const factory = MODELS[provider];
        // A provider the AI SDK has no package for (a newly scaffolded one) has no AI SDK row.
        if (factory === undefined) return;
        const sdkRow = pickAiSdkRow(results.filter((result) => result.provider === provider));
        const scenario = scenarios.find((candidate) => candidate.id === sdkRow?.scenario);
        if (sdkRow === undefined || scenario === undefined) {
          problems.push(
            `${provider}: no AI SDK row (no clean "${AI_SDK_LABELS.join('" or "')}" row to replay)`,
          );
          return;
        }
        let driven: Awaited<ReturnType<typeof driveThroughAiSdk>>;
        try {
          driven = await driveThroughAiSdk(factory, scenario, server, timeoutMs);
        } catch (error) {
          // `ai` and the @ai-sdk/* packages are optional peers of the CLI: without them, no AI SDK row.
          if ((error as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND') return;
          throw error;
        }
        const row: DemoResult = {
          provider,
          scenario: scenario.id,
          label: `${sdkRow.label} (AI SDK)`,
          via: AI_SDK_VIA,
          report: driven.report,
          problems: [...driven.problems, ...disagreements(sdkRow.report, driven.report)],
        };
        rows.set(provider, row);
        if (row.problems.length > 0)
          problems.push(`${scenario.id} (ai + ${factory.sdkPackage}): ${row.problems.join('; ')}`);
      }),
    );
  } finally {
    await server.close();
  }
  const merged: DemoResult[] = [];
  results.forEach((result, index) => {
    merged.push(result);
    const row = rows.get(result.provider);
    if (row !== undefined && results[index + 1]?.provider !== result.provider) merged.push(row);
  });
  return { results: merged, problems };
}
