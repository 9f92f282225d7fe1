import { checkOptionKeys } from '@faultline/render/toolkit';
import type { FaultlineHttpOptions } from './index.ts';

/** The keys of `FaultlineHttpOptions`: a key added to the type and not here fails the type check. */
const HTTP_OPTION_KEYS = {
  disclosure: true,
  typePrefix: true,
  instanceFromPath: true,
} as const satisfies Record<keyof FaultlineHttpOptions, true>;

/** An unknown key of `FaultlineHttpOptions` is a TypeError naming it (and the nearest valid one) at the call. */
export function checkHttpOptions(scope: string, options: unknown): void {
  checkOptionKeys(scope, options, HTTP_OPTION_KEYS);
}
