import leven from 'leven';

/**
 * A clear TypeError for an option that cannot mean anything, thrown at the call before any request
 * (Node's own `ERR_INVALID_ARG_VALUE` code). It lives in the lowest layer so that classify(), every
 * adapter's `readHttpFailure` and every entry point above them refuse a bad option the same way.
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

/**
 * The keys an options object may hold, written as `{ … } satisfies Record<keyof Options, true>`
 * beside the checked call: an option added to the type and not to its table fails the type check,
 * so no documented option is ever refused.
 */
export type OptionKeys = Readonly<Record<string, true>>;

/**
 * The valid name nearest to `name` (case-insensitive Levenshtein distance, via `leven`), or
 * undefined when none is near enough to be a likely meaning: within six tenths of the longer name,
 * so a misspelling (`maxAtempts`) and another library's word for the same option (`maxRetries` for
 * `retry`, `abortSignal` for `signal`) get a suggestion and an unrelated word gets none.
 */
export function nearestOption(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = leven(wanted, candidate.toLowerCase());
    if (distance < bestDistance && distance <= Math.floor(0.6 * Math.max(name.length, candidate.length))) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The TypeError for an option key `scope` does not know: it names the key, where it was given
 * (`within`, for a nested options object such as `retry`), and the nearest valid key, or all of
 * them when none is near.
 */
export function unknownOption(
  scope: string,
  key: string,
  known: readonly string[],
  within?: string,
): TypeError {
  const nearest = nearestOption(key, known);
  const place = within === undefined ? '' : ` in "${within}"`;
  const hint =
    nearest === undefined
      ? `expected one of ${known.map((name) => `"${name}"`).join(', ')}`
      : `did you mean "${nearest}"?`;
  const error = new TypeError(`unknown option "${key.slice(0, 60)}"${place} for ${scope}; ${hint}`);
  (error as TypeError & { code: string }).code = 'ERR_INVALID_ARG_VALUE';
  return error;
}

/**
 * Throws `unknownOption` for the first key of `options` that `known` lacks (own and inherited
 * enumerable keys: the ones a read of `options.name` would see). Not an object: nothing to check
 * here (the entry point's own check names what it expected). An object whose keys cannot be listed
 * (a Proxy whose `ownKeys` throws) is left to the entry point, which reads it as it always has.
 */
export function checkOptionKeys(scope: string, options: unknown, known: OptionKeys, within?: string): void {
  if (options === null || typeof options !== 'object') return;
  let unknown: string | undefined;
  try {
    for (const key in options) {
      if (!Object.hasOwn(known, key)) {
        unknown = key;
        break;
      }
    }
  } catch {
    return;
  }
  if (unknown !== undefined) throw unknownOption(scope, unknown, Object.keys(known), within);
}
