// The option checks live in classify, the lowest layer, so that classify(), every adapter's
// readHttpFailure and render's entry points refuse a bad or unknown option the same way.
export {
  checkOptionKeys,
  invalidOption,
  nearestOption,
  type OptionKeys,
  unknownOption,
} from '@faultline/classify/toolkit';

/** `value` is undefined or something an SDK can take as an AbortSignal. */
export function isSignalOption(value: unknown): boolean {
  return (
    value === undefined ||
    (value !== null &&
      typeof value === 'object' &&
      typeof (value as { addEventListener?: unknown }).addEventListener === 'function')
  );
}
