/**
 * A clear TypeError for an option that cannot mean anything, thrown at the call before any request
 * (Node's own `ERR_INVALID_ARG_VALUE` code), shared by `withClassifiedErrors` and `guardStream`.
 */
export function invalidOption(scope: string, name: string, expected: string, value: unknown): TypeError {
  let shown: string;
  try {
    shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    shown = typeof value;
  }
  const error = new TypeError(`${scope}: ${name} must be ${expected} (got ${shown.slice(0, 60)})`);
  (error as TypeError & { code: string }).code = 'ERR_INVALID_ARG_VALUE';
  return error;
}

/** `value` is undefined or something an SDK can take as an AbortSignal. */
export function isSignalOption(value: unknown): boolean {
  return (
    value === undefined ||
    (value !== null &&
      typeof value === 'object' &&
      typeof (value as { addEventListener?: unknown }).addEventListener === 'function')
  );
}
