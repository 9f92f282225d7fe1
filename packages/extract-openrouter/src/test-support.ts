import type { Classification, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import * as openrouterSdk from '@openrouter/sdk';
import * as openrouterSdkV0 from 'openrouter-sdk-v0';
// The one driver module the demo, the bench, the corpus and these tests call @openrouter/sdk through
// (`pnpm new-provider` copied it from `--driver`). Imported by path: @faultline/cli depends on this
// package, so this package cannot depend on the CLI.
import { PROMPT } from '../../cli/src/driver/define.ts';
import driver from '../../cli/src/driver/providers/openrouter.ts';
import { openrouterExtractor } from './extract-openrouter.ts';

/** One installed major of @openrouter/sdk, by devDependency alias, and its module as `import()` gives it. */
export interface Sdk {
  readonly alias: string;
  readonly module: typeof openrouterSdk;
}

/** Every supported major of @openrouter/sdk: 1.x, and the last 0.x (0.13) by its npm alias. */
export const SDKS: readonly Sdk[] = [
  { alias: '@openrouter/sdk', module: openrouterSdk },
  { alias: 'openrouter-sdk-v0', module: openrouterSdkV0 as unknown as typeof openrouterSdk },
];

/** The driver's canary key and the prompt it sends: no serialised output may carry either. */
export const SECRETS: readonly string[] = [...driver.credentials, PROMPT];

/** What one driven call asks for: the scenario's `api` and `stream`, the caller's signal, the SDK's own timeout. */
export interface DrivenCall {
  readonly api?: string | undefined;
  readonly stream?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs: number;
}

/** Calls the real @openrouter/sdk at `baseUrl` through the driver module, its own retries off. */
export function callSdk(sdk: Sdk, baseUrl: string, call: DrivenCall): Promise<unknown> {
  return driver.call({
    sdk: sdk.module,
    baseUrl,
    api: call.api,
    stream: call.stream,
    signal: call.signal,
    // The SDK's own timeout also bounds a stream's read when no signal is given: for a stream it
    // is only the backstop, so a stall is ended by the guard's idle timer, one way, never by a race.
    timeoutMs: call.stream === true ? call.timeoutMs * 10 : call.timeoutMs,
    sdkRetries: 'off',
    guard: { idleTimeoutMs: call.timeoutMs, ...(call.signal === undefined ? {} : { signal: call.signal }) },
  });
}

/** The whole pipeline as a user runs it: openrouterExtractor, then render's built-in extractors, then classify. */
export function classifyThrown(
  error: unknown,
  options: { streaming?: boolean; signal?: AbortSignal } = {},
): { metadata: ProviderErrorMetadata; classification: Classification } {
  const faultline = classifyError(error, {
    extractors: [openrouterExtractor],
    streaming: options.streaming === true,
    signal: options.signal,
  });
  return { metadata: faultline.metadata, classification: faultline.classification };
}

/** A chat result as OpenRouter answers it (every field @openrouter/sdk requires, both majors). */
export function chatResult(finishReason: string, content: string): string {
  return JSON.stringify({
    id: 'gen-1763760000-faultline0000',
    provider: 'OpenAI',
    model: 'openai/gpt-4o-mini',
    object: 'chat.completion',
    created: 1763760000,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: finishReason,
        native_finish_reason: finishReason,
        message: { role: 'assistant', content, refusal: null, reasoning: null },
      },
    ],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  });
}

/** One chunk of a chat stream as OpenRouter sends it. */
export function chatChunk(content: string, finishReason: string | null = null): string {
  return JSON.stringify({
    id: 'gen-1763760000-faultline0000',
    provider: 'OpenAI',
    model: 'openai/gpt-4o-mini',
    object: 'chat.completion.chunk',
    created: 1763760000,
    choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finishReason }],
  });
}

/** A client of one major at `serverURL`, its retries off, for tests that call the SDK directly. */
export function clientOf(
  sdk: Sdk,
  serverURL: string,
  timeoutMs: number,
  fetcher?: typeof globalThis.fetch,
): openrouterSdk.OpenRouter {
  return new sdk.module.OpenRouter({
    apiKey: driver.credentials[0],
    serverURL,
    timeoutMs,
    retryConfig: { strategy: 'none' },
    ...(fetcher === undefined ? {} : { httpClient: new sdk.module.HTTPClient({ fetcher }) }),
  });
}
