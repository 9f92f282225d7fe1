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
import { Bench } from 'tinybench';
import { type Measured, measured } from './statistics.ts';

export interface ErrorPathRow {
  readonly provider: string;
  readonly sdkError: string;
  readonly construct: Measured;
  readonly classify: Measured;
  /** Classification cost as a share of the SDK's own cost of constructing the error. */
  readonly ratio: number;
  readonly perSecond: number;
}

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

/**
 * The error path: classifying a real SDK error end to end (extract + classify + report) against
 * the SDK constructing that same error, in the same run. The sample is what the real SDK threw
 * for the provider's rate-limit scenario against the loopback server.
 */
export async function benchErrorPath(servers: ScenarioServers): Promise<ErrorPathRow[]> {
  const rows: ErrorPathRow[] = [];
  for (const subject of subjects) {
    const scenario = loadScenarios(subject.provider).find(
      (candidate) => candidate.response.kind === 'http' && candidate.expected.reason === 'rate_limit',
    );
    if (scenario === undefined) throw new Error(`bench: no rate_limit http scenario for ${subject.provider}`);
    let sample: any;
    try {
      await callProvider(scenario, servers.baseUrlFor(scenario));
    } catch (error) {
      sample = error;
    }
    if (sample === undefined) throw new Error(`bench: ${scenario.id} did not fail`);
    const construct = subject.construct(sample);
    const classifyOnce = () => classifyError(sample, { extractors: [subject.extractor] }).toErrorReport();
    const check = classifyError(construct(), { extractors: [subject.extractor] }).toErrorReport();
    if (check.reason !== classifyOnce().reason) {
      throw new Error(
        `bench: the re-constructed ${subject.provider} error classifies differently (${check.reason})`,
      );
    }
    const bench = new Bench({ time: 500, warmupTime: 100 });
    bench.add('construct', construct).add('classify', classifyOnce);
    await bench.run();
    const [constructed, classified] = measured(bench);
    rows.push({
      provider: subject.provider,
      sdkError: sample?.constructor?.name ?? typeof sample,
      construct: constructed!,
      classify: classified!,
      ratio: classified!.medianNs / constructed!.medianNs,
      perSecond: 1e9 / classified!.medianNs,
    });
  }
  return rows;
}
