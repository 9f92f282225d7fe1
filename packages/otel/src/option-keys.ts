import { checkOptionKeys } from '@faultline/render/toolkit';
import type { FallbackTarget, FaultlineOtelOptions } from './index.ts';

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

/** The keys of `FallbackTarget`, the next candidate `recordFallback` names. */
const FALLBACK_TARGET_KEYS = {
  provider: true,
  model: true,
} as const satisfies Record<keyof FallbackTarget, true>;

/** `recordFallback`'s options and the keys of its target. */
export function checkFallbackOptions(target: unknown, options: unknown): void {
  checkOptionKeys('recordFallback', target, FALLBACK_TARGET_KEYS, 'to');
  checkOtelOptions('recordFallback', options);
}
