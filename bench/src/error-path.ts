// Each provider's real rate-limit error (what its SDK threw against the loopback server) and how
// the SDK builds it again: the samples the retained-memory section (retained-worker.ts) and
// profile-error-path.ts work on.
import Anthropic from '@anthropic-ai/sdk';
import { ThrottlingException } from '@aws-sdk/client-bedrock-runtime';
import type { Extractor } from '@faultline/classify';
import { anthropicExtractor } from '@faultline/extract-anthropic';
import { bedrockExtractor } from '@faultline/extract-bedrock';
import { googleGenaiExtractor } from '@faultline/extract-google-genai';
import { groqExtractor } from '@faultline/extract-groq';
import { mistralExtractor } from '@faultline/extract-mistral';
import { openaiExtractor } from '@faultline/extract-openai';
import { classifyError } from '@faultline/render';
import { callProvider, type ScenarioServers } from '@faultline/scenario-driver';
import { loadScenarios } from '@faultline/test-fixtures';
import { ApiError } from '@google/genai';
import { SDKError } from '@mistralai/mistralai/models/errors';
import Groq from 'groq-sdk';
import OpenAI from 'openai';

export interface Subject {
  readonly provider: string;
  readonly extractor: Extractor;
  /** The SDK building this error again, through its own public constructor or factory. */
  construct(sample: any): () => unknown;
}

export const subjects: Subject[] = [
  {
    provider: 'openai',
    extractor: openaiExtractor,
    construct: (sample) => () =>
      OpenAI.APIError.generate(sample.status, { error: sample.error }, undefined, sample.headers),
  },
  {
    provider: 'groq',
    extractor: groqExtractor,
    construct: (sample) => () =>
      Groq.APIError.generate(sample.status, sample.error, undefined, sample.headers),
  },
  {
    provider: 'anthropic',
    extractor: anthropicExtractor,
    construct: (sample) => () =>
      Anthropic.APIError.generate(sample.status, sample.error, undefined, sample.headers),
  },
  {
    provider: 'mistral',
    extractor: mistralExtractor,
    // The SDK builds an SDKError from the Response it received; a Response has one body, so each
    // construction gets a fresh one (the SDK reads its body text before constructing).
    construct: (sample) => () =>
      new SDKError('API error occurred', {
        response: new Response(null, { status: sample.statusCode, headers: sample.headers }),
        request: new Request('http://127.0.0.1/v1/chat/completions'),
        body: sample.body,
      }),
  },
  {
    provider: 'google-genai',
    extractor: googleGenaiExtractor,
    construct: (sample) => () => new ApiError({ message: sample.message, status: sample.status }),
  },
  {
    provider: 'bedrock',
    extractor: bedrockExtractor,
    construct: (sample) => () =>
      new ThrottlingException({ message: sample.message, $metadata: sample.$metadata }),
  },
];

/** One provider's real SDK error, how the SDK builds it again, and faultline's path over it. */
export interface ErrorPathSample {
  readonly provider: string;
  readonly sdkError: string;
  readonly construct: () => unknown;
  /** What a throw site pays: the FaultlineError, nothing read. */
  readonly throwOnce: () => unknown;
  /** The whole path: extract + classify + FaultlineError + report. */
  readonly classifyOnce: () => unknown;
  /** What a throw site and a retry loop pay: the FaultlineError with its classification read. */
  readonly decideOnce: () => unknown;
}

/** What the provider's real SDK throws for its rate-limit scenario against the loopback server. */
export async function rateLimitSample(provider: string, servers: ScenarioServers): Promise<unknown> {
  const scenario = loadScenarios(provider).find(
    (candidate) => candidate.response.kind === 'http' && candidate.expected.reason === 'rate_limit',
  );
  if (scenario === undefined) throw new Error(`bench: no rate_limit http scenario for ${provider}`);
  // On a loaded machine a call can fail otherwise (the SDK's own timeout: seen once as mistral's
  // `interrupted`): the sample is the SDK's rate-limit error, so such a call is made again.
  let seen = 'no failure';
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await callProvider(scenario, servers.baseUrlFor(scenario));
    } catch (error) {
      const extractors = subjects
        .filter((subject) => subject.provider === provider)
        .map((subject) => subject.extractor);
      const reason = classifyError(error, { extractors }).toErrorReport().reason;
      if (reason === 'rate_limit') return error;
      seen = reason;
    }
  }
  throw new Error(`bench: ${scenario.id} did not fail as a rate limit in 3 calls (last: ${seen})`);
}

/**
 * For each provider, what its real SDK threw for the provider's rate-limit scenario against the
 * loopback server, checked to classify the same when the SDK constructs it again.
 */
export async function errorPathSamples(servers: ScenarioServers): Promise<ErrorPathSample[]> {
  const samples: ErrorPathSample[] = [];
  for (const subject of subjects) {
    const sample: any = await rateLimitSample(subject.provider, servers);
    const construct = subject.construct(sample);
    const options = { extractors: [subject.extractor] };
    const classifyOnce = () => classifyError(sample, options).toErrorReport();
    const check = classifyError(construct(), options).toErrorReport();
    if (check.reason !== classifyOnce().reason) {
      throw new Error(
        `bench: the re-constructed ${subject.provider} error classifies differently (${check.reason})`,
      );
    }
    samples.push({
      provider: subject.provider,
      sdkError: sample?.constructor?.name ?? typeof sample,
      construct,
      throwOnce: () => classifyError(sample, options),
      classifyOnce,
      decideOnce: () => classifyError(sample, options).classification,
    });
  }
  return samples;
}
