/**
 * Defects this suite found in packages it may not edit (the extractors and the bridges belong to
 * their engineers). Each entry skips exactly the (case, entry point) pairs it names, so the rest
 * of the corpus still runs against those entry points; the skipped pairs are reported by name.
 * Delete an entry once its owner has fixed it: the corpus then checks the fix.
 */
export interface KnownDefect {
  /** The package that must change. */
  readonly owner: string;
  readonly defect: string;
  /** Corpus case names this applies to (matched as a regular expression). */
  readonly cases: RegExp;
  /** Entry point names this applies to (matched as a regular expression). */
  readonly entryPoints: RegExp;
  /** The entry point fails on any Proxy or throwing getter: the generated-value properties leave it out. */
  readonly failsOnProxies?: boolean;
}

// Every defect found so far has been fixed by its owner (anthropic byte bodies, the bullmq backoff
// strategy's totality, both bridges' synthesised reports and their reads of marked errors): the
// corpus now checks those fixes. Add an entry here only for a defect that cannot be fixed at once.
export const KNOWN_DEFECTS: readonly KnownDefect[] = [];

/** The defect that covers this pair, if any. */
export function knownDefectFor(caseName: string, entryPointName: string): KnownDefect | undefined {
  return KNOWN_DEFECTS.find(
    (defect) => defect.cases.test(caseName) && defect.entryPoints.test(entryPointName),
  );
}
