import type { Extractor } from '@faultline/classify';
import { extractor as openaiExtractor } from '@faultline/extract-openai';
import { type ClassifyErrorOptions, classifyError, type FaultlineError } from '@faultline/render';
import { checkOptionKeys } from '@faultline/render/toolkit';
import { AGENTS_CLASSIFY_OPTION_KEYS } from './option-keys.ts';

/** Options of {@link classifyAgentsError}: those of `classifyError`. */
export interface AgentsClassifyOptions extends ClassifyErrorOptions {
  /**
   * Extractors for the SDKs behind your models: they run before the `openai` extractor, which reads
   * what `@openai/agents-openai`'s models throw (the `openai` SDK's errors). A model from another
   * SDK (the `aisdk()` extension, a custom `Model`) needs its adapter's extractor here.
   */
  readonly extractors?: readonly Extractor[] | undefined;
}

/**
 * Classifies what the OpenAI Agents SDK's `Runner` throws when a model call fails (`run()`, or the
 * stream of a streamed run) into a `FaultlineError`. The runner hands the model's error on as the
 * model threw it (the `openai` SDK's `RateLimitError`, undici's `TypeError: terminated` for a stream
 * cut part-way ...), so the provider SDK's extractor reads it; pass `streaming: true` for the error
 * of a streamed run. Total: any thrown value gets a classification.
 */
export function classifyAgentsError(thrown: unknown, options: AgentsClassifyOptions = {}): FaultlineError {
  checkOptionKeys('classifyAgentsError', options, AGENTS_CLASSIFY_OPTION_KEYS);
  return classifyChecked(thrown, options);
}

/** {@link classifyAgentsError} on options already checked. */
export function classifyChecked(thrown: unknown, options: AgentsClassifyOptions): FaultlineError {
  const { extractors, ...rest } = options;
  return classifyError(thrown, { ...rest, extractors: [...(extractors ?? []), openaiExtractor] });
}
