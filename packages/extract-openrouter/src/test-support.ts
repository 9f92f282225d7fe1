import type { Classification, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import * as openrouterSdk from '@openrouter/sdk';
// The one driver module the demo, the bench, the corpus and these tests call @openrouter/sdk through
// (`pnpm new-provider` copied it from `--driver`). Imported by path: @faultline/cli depends on this
// package, so this package cannot depend on the CLI.
import driver from '../../cli/src/driver/providers/openrouter.ts';
import { openrouterExtractor } from './extract-openrouter.ts';

/** One installed major of @openrouter/sdk, by devDependency alias, and its module as `import()` gives it. */
export interface Sdk {
  readonly alias: string;
  readonly module: typeof openrouterSdk;
}

/** Every supported major of @openrouter/sdk: add each older major you support as an npm alias devDependency. */
export const SDKS: readonly Sdk[] = [{ alias: '@openrouter/sdk', module: openrouterSdk }];

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
    timeoutMs: call.timeoutMs,
    sdkRetries: 'off',
    guard: { idleTimeoutMs: call.timeoutMs, ...(call.signal === undefined ? {} : { signal: call.signal }) },
  });
}

/** The whole pipeline as a user runs it: openrouterExtractor, then render's built-in extractors, then classify. */
export function classifyThrown(
  error: unknown,
  options: { streaming?: boolean } = {},
): { metadata: ProviderErrorMetadata; classification: Classification } {
  const faultline = classifyError(error, {
    extractors: [openrouterExtractor],
    streaming: options.streaming === true,
  });
  return { metadata: faultline.metadata, classification: faultline.classification };
}
