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

export const KNOWN_DEFECTS: readonly KnownDefect[] = [
  {
    owner: '@faultline/extract-anthropic',
    defect:
      'parseAnthropicErrorBody runs a zod looseObject over a typed array (one key per byte) and stringifySafely ' +
      'JSON-encodes it before attachRawBody cuts it: a 50 MB Uint8Array/Buffer `error` takes tens of seconds and ' +
      'hundreds of MB (about 0.5-1 s per MB).',
    cases: /^body: 50 MB (Uint8Array|Buffer) in a stainless APIError/,
    entryPoints: /^anthropic (extract|withClassifiedErrors)$/,
  },
  {
    owner: '@faultline/bullmq',
    defect:
      'faultlineBackoffStrategy is not total: it reads `error.name`, `instanceof` and `job.opts.backoff.delay` ' +
      "without a guard (a Proxy, a throwing getter or a symbol delay throws inside BullMQ's worker).",
    cases:
      /^(a symbol|a registered symbol|an object without prototype|a (callable )?Proxy|a revoked Proxy|an Error whose (getters|toString))/,
    entryPoints: /^bullmq faultlineBackoffStrategy$/,
    failsOnProxies: true,
  },
  {
    owner: '@faultline/bullmq',
    defect:
      'recoverErrorReport builds "Unrecoverable job failure (...): <message>" after the message was cut to 2,000 ' +
      'characters, so a long failedReason yields a report that fails its own schema (message > 2,000).',
    cases: /^a 50 MB string$/,
    entryPoints: /^bullmq recoverErrorReport$/,
  },
  {
    owner: '@faultline/temporal',
    defect:
      'recoverErrorReport builds "Unrecoverable workflow failure: <message>" after the message was cut to 2,000 ' +
      'characters, so a long message yields a report that fails its own schema (message > 2,000).',
    cases: /(50 MB|nested 100,000 deep)/,
    entryPoints: /^temporal recoverErrorReport$/,
  },
  {
    owner: '@faultline/temporal, @faultline/bullmq',
    defect:
      'withFaultlineActivity / withFaultlineProcessor read `error.classification.callerAborted` and ' +
      '`error.toErrorReport()` of a marked FaultlineError (e.g. from another copy of faultline) unguarded: a ' +
      'marked error whose classification cannot be read escapes as a raw exception.',
    cases: /^a faultline-marked impostor/,
    entryPoints: /^(temporal withFaultlineActivity|bullmq withFaultlineProcessor)$/,
  },
];

/** The defect that covers this pair, if any. */
export function knownDefectFor(caseName: string, entryPointName: string): KnownDefect | undefined {
  return KNOWN_DEFECTS.find(
    (defect) => defect.cases.test(caseName) && defect.entryPoints.test(entryPointName),
  );
}
