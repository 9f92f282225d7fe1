import { checkOptionKeys } from '@faultline/render/toolkit';
import type { FaultlineOtelOptions } from './index.ts';

/** The keys of `FaultlineOtelOptions`: a key added to the type and not here fails the type check. */
const OTEL_OPTION_KEYS = {
  span: true,
  disclosure: true,
  genAiProviderName: true,
  meterProvider: true,
} as const satisfies Record<keyof FaultlineOtelOptions, true>;

/** An unknown key of `FaultlineOtelOptions` is a TypeError naming it (and the nearest valid one) at the call. */
export function checkOtelOptions(scope: string, options: unknown): void {
  checkOptionKeys(scope, options, OTEL_OPTION_KEYS);
}
