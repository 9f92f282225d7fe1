import type {
  Classification as ClassificationType,
  DeliveredOutput,
  ProviderErrorMetadata,
} from '@faultline/classify';
import {
  classificationFor,
  classify,
  copyRawBody,
  messageOf,
  parseClassification,
  safeGet,
  TAXONOMY,
} from '@faultline/classify/toolkit';
import { extractMetadata } from './built-in-extractors.ts';
import {
  causeLinks,
  FAULTLINE_ERROR_MARKER,
  FAULTLINE_ERROR_TYPES,
  faultlineErrorTypes,
  hasFaultlineMarker,
  TRUSTED_CLASSIFICATIONS,
  TRUSTED_ERRORS,
  trustClassification,
} from './identity.ts';
import {
  type AttemptRecord,
  type ErrorReport,
  minimalReport,
  plainReport,
  readAttemptRecord,
  reportFromChain,
} from './report.ts';
import { scrubAndCut, scrubSecrets } from './secrets.ts';
import { installSummaryStack } from './summary.ts';
import { normaliseCause } from './thrown-value.ts';

/** The inference families, one error class (and a `*ModelNotFoundError` sibling) each. */
export type InferenceFamily =
  | 'completion'
  | 'embedding'
  | 'image_generation'
  | 'speech'
  | 'transcription'
  | 'rerank';

export interface FaultlineErrorOptions {
  /** The original thrown value. A non-Error is normalised into a `ThrownValueError` holding it. */
  readonly cause?: unknown;
  /** The classification; when absent it is computed from `metadata` with `classify()`. */
  readonly classification?: ClassificationType | undefined;
  /** What the extractor learned. `rawBody`, if any, is kept non-enumerable. */
  readonly metadata?: ProviderErrorMetadata | undefined;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly operation?: string | undefined;
  /** Set by a retry loop (`withClassifiedErrors`): what it did before giving up. */
  readonly attempts?: AttemptRecord | undefined;
  /** When the failure happened (ms since the epoch): the report's `retryableAt` counts from it. Default: now. */
  readonly failedAt?: number | undefined;
}

function safeText(value: unknown, maxLength = 200): string | undefined {
  return typeof value === 'string' && value.length > 0 ? scrubAndCut(value, maxLength) : undefined;
}

/** A shallow copy of the metadata, its text scrubbed and `rawBody` made non-enumerable; total on any input. */
function copyMetadata(metadata: unknown): ProviderErrorMetadata {
  const copy: Record<string, unknown> = {};
  try {
    if (metadata !== null && typeof metadata === 'object') {
      for (const key of Object.keys(metadata).slice(0, 100)) {
        if (key === 'rawBody') continue;
        const value = safeGet(metadata, key);
        // A logger may write the metadata: its text is scrubbed too.
        copy[key] = typeof value === 'string' ? scrubSecrets(value) : value;
      }
    }
  } catch {
    // A Proxy whose ownKeys trap throws: keep what was read.
  }
  if (typeof copy.provider !== 'string') copy.provider = 'unknown';
  if (typeof copy.message !== 'string') copy.message = '';
  if (typeof copy.origin !== 'string') copy.origin = 'unknown';
  copyRawBody(metadata, copy);
  return copy as unknown as ProviderErrorMetadata;
}

function readClassification(value: unknown): ClassificationType | undefined {
  try {
    return parseClassification(value);
  } catch {
    return undefined;
  }
}

/** The errorTypes of a class and its ancestors, read once per class from their static `errorType`. */
const ERROR_TYPES_OF_CLASS = new WeakMap<object, readonly string[]>();

function errorTypesOf(errorClass: unknown): readonly string[] {
  if (typeof errorClass !== 'function') return Object.freeze([]);
  const known = ERROR_TYPES_OF_CLASS.get(errorClass);
  if (known !== undefined) return known;
  const types: string[] = [];
  let current = errorClass;
  while (typeof current === 'function' && types.length < 16) {
    const type = safeGet(current, 'errorType');
    if (typeof type === 'string' && !types.includes(type)) types.push(type);
    current = Object.getPrototypeOf(current);
  }
  Object.freeze(types);
  ERROR_TYPES_OF_CLASS.set(errorClass, types);
  // The marker's errorTypes and the name live on the class's prototype, not on every instance.
  const proto = safeGet(errorClass, 'prototype');
  if (typeof proto === 'object' && proto !== null && !Object.hasOwn(proto, FAULTLINE_ERROR_TYPES)) {
    try {
      Object.defineProperty(proto, FAULTLINE_ERROR_TYPES, { value: types });
      if (!Object.hasOwn(proto, 'name'))
        Object.defineProperty(proto, 'name', {
          value: types[0] ?? 'FaultlineError',
          writable: true,
          configurable: true,
        });
    } catch {
      // A frozen prototype: the marked value then declares its nearest ancestor's types.
    }
  }
  return types;
}

/** An own field as an assignment would make it (enumerable, writable, configurable). */
function defineField(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The root of every faultline error, built with all its fields in the constructor. Identity
 * survives duplicate installs and realms through the `Symbol.for('faultline.error')` marker: use
 * `FaultlineError.isInstance(value)` (or `CompletionError.isInstance(value)` for a family), never
 * `instanceof`. Building one never throws.
 */
export class FaultlineError extends Error {
  static readonly errorType: string = 'FaultlineError';

  /** True when `value` is a faultline error of this class (or a subclass), whichever copy built it. */
  static isInstance(value: unknown): value is FaultlineError {
    if (!hasFaultlineMarker(value)) return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the check was called on.
    const wanted = safeGet(this, 'errorType');
    if (wanted === 'FaultlineError' || typeof wanted !== 'string') return true;
    return faultlineErrorTypes(value).includes(wanted);
  }

  declare readonly [FAULTLINE_ERROR_MARKER]: true;
  declare readonly [FAULTLINE_ERROR_TYPES]: readonly string[];
  /** The class's errorType, e.g. `CompletionModelNotFoundError`. */
  readonly errorType: string;
  declare readonly classification: ClassificationType;
  declare readonly metadata: ProviderErrorMetadata;
  declare readonly provider?: string;
  declare readonly model?: string;
  declare readonly operation?: string;
  /** What the retry loop did (attempts made, each wait), when this error left `withClassifiedErrors`. */
  declare readonly attempts?: AttemptRecord;
  /** When the failure happened (ms since the epoch); a wait in the report counts from it (`retryableAt`). */
  declare readonly failedAt: number;
  declare readonly cause: unknown;

  constructor(message?: unknown, options: FaultlineErrorOptions = {}) {
    const rawCause = safeGet(options, 'cause');
    const hasCause = rawCause !== undefined;
    const metadata = copyMetadata(safeGet(options, 'metadata'));
    const given = safeGet(options, 'classification');
    let classification =
      typeof given === 'object' && given !== null && TRUSTED_CLASSIFICATIONS.has(given)
        ? (given as ClassificationType)
        : readClassification(given);
    if (classification === undefined) {
      try {
        classification = classify(metadata);
      } catch {
        classification = classificationFor('unknown');
      }
    }
    if (!TRUSTED_CLASSIFICATIONS.has(classification))
      classification = trustClassification({ ...classification });
    const text =
      safeText(typeof message === 'string' ? message : messageOf(message, 16 * 1024), 2000) ??
      safeText(metadata.message, 2000) ??
      TAXONOMY[classification.reason].advice;
    // A wrapping error needs no stack of its own: its cause holds the frames that matter (as Node
    // core builds its own wrapping errors). An error with no cause keeps its stack.
    const stackTraceLimit = Error.stackTraceLimit;
    if (hasCause) Error.stackTraceLimit = 0;
    try {
      super(text, hasCause ? { cause: normaliseCause(rawCause) } : undefined);
    } finally {
      if (hasCause) Error.stackTraceLimit = stackTraceLimit;
    }
    this.errorType =
      new.target === FaultlineError ? 'FaultlineError' : (errorTypesOf(new.target)[0] ?? 'FaultlineError');
    // The classification, metadata and attempts are not enumerable: what Node prints for an error is
    // its stack and its enumerable fields, and an uncaught one prints a short summary (summary.ts)
    // rather than every field. `toErrorReport()` and `toJSON()` give them all.
    Object.defineProperty(this, 'classification', { value: classification });
    Object.defineProperty(this, 'metadata', { value: metadata, writable: true, configurable: true });
    const provider = safeText(safeGet(options, 'provider'));
    if (provider !== undefined) defineField(this, 'provider', provider);
    const model = safeText(safeGet(options, 'model'));
    if (model !== undefined) defineField(this, 'model', model);
    const operation = safeText(safeGet(options, 'operation'));
    if (operation !== undefined) defineField(this, 'operation', operation);
    const attempts = safeGet(options, 'attempts');
    const record = attempts === undefined ? undefined : readAttemptRecord(attempts);
    if (record !== undefined)
      Object.defineProperty(this, 'attempts', { value: record, writable: true, configurable: true });
    const failedAt = safeGet(options, 'failedAt');
    Object.defineProperty(this, 'failedAt', {
      value: typeof failedAt === 'number' && Number.isFinite(failedAt) ? failedAt : Date.now(),
    });
    if (hasCause) installSummaryStack(this);
    TRUSTED_ERRORS.add(this);
  }

  static {
    // The class's own name, spelled out: a bundler renames a class whose body refers to it (esbuild
    // builds this one as `class _FaultlineError`), and `util.inspect` prints the constructor's name.
    Object.defineProperty(FaultlineError, 'name', { value: 'FaultlineError', configurable: true });
    Object.defineProperty(FaultlineError.prototype, FAULTLINE_ERROR_MARKER, { value: true });
    errorTypesOf(FaultlineError);
  }

  /** How much a stream had delivered before it failed, when known. */
  get delivered(): DeliveredOutput | undefined {
    return this.metadata.delivered;
  }

  /** The strict, JSON-only report: what retry loops, HTTP handlers, agents and people read. */
  toErrorReport(): ErrorReport {
    return reportFromChain(this) ?? minimalReport(this.message);
  }

  /** `JSON.stringify(error)` gives the safe report, never the raw body or a secret. */
  toJSON(): Record<string, unknown> {
    return plainReport(this.toErrorReport());
  }
}

export class CompletionError extends FaultlineError {
  static override readonly errorType: string = 'CompletionError';
  declare readonly errorType: 'CompletionError' | 'CompletionModelNotFoundError';
}
export class CompletionModelNotFoundError extends CompletionError {
  static override readonly errorType: string = 'CompletionModelNotFoundError';
  declare readonly errorType: 'CompletionModelNotFoundError';
}
export class EmbeddingError extends FaultlineError {
  static override readonly errorType: string = 'EmbeddingError';
  declare readonly errorType: 'EmbeddingError' | 'EmbeddingModelNotFoundError';
}
export class EmbeddingModelNotFoundError extends EmbeddingError {
  static override readonly errorType: string = 'EmbeddingModelNotFoundError';
  declare readonly errorType: 'EmbeddingModelNotFoundError';
}
export class ImageGenerationError extends FaultlineError {
  static override readonly errorType: string = 'ImageGenerationError';
  declare readonly errorType: 'ImageGenerationError' | 'ImageGenerationModelNotFoundError';
}
export class ImageGenerationModelNotFoundError extends ImageGenerationError {
  static override readonly errorType: string = 'ImageGenerationModelNotFoundError';
  declare readonly errorType: 'ImageGenerationModelNotFoundError';
}
export class SpeechError extends FaultlineError {
  static override readonly errorType: string = 'SpeechError';
  declare readonly errorType: 'SpeechError' | 'SpeechModelNotFoundError';
}
export class SpeechModelNotFoundError extends SpeechError {
  static override readonly errorType: string = 'SpeechModelNotFoundError';
  declare readonly errorType: 'SpeechModelNotFoundError';
}
export class TranscriptionError extends FaultlineError {
  static override readonly errorType: string = 'TranscriptionError';
  declare readonly errorType: 'TranscriptionError' | 'TranscriptionModelNotFoundError';
}
export class TranscriptionModelNotFoundError extends TranscriptionError {
  static override readonly errorType: string = 'TranscriptionModelNotFoundError';
  declare readonly errorType: 'TranscriptionModelNotFoundError';
}
export class RerankError extends FaultlineError {
  static override readonly errorType: string = 'RerankError';
  declare readonly errorType: 'RerankError' | 'RerankModelNotFoundError';
}
export class RerankModelNotFoundError extends RerankError {
  static override readonly errorType: string = 'RerankModelNotFoundError';
  declare readonly errorType: 'RerankModelNotFoundError';
}

type FaultlineErrorClass = new (message?: unknown, options?: FaultlineErrorOptions) => FaultlineError;

const FAMILY_CLASSES: Readonly<
  Record<InferenceFamily, { readonly base: FaultlineErrorClass; readonly modelNotFound: FaultlineErrorClass }>
> = {
  completion: { base: CompletionError, modelNotFound: CompletionModelNotFoundError },
  embedding: { base: EmbeddingError, modelNotFound: EmbeddingModelNotFoundError },
  image_generation: { base: ImageGenerationError, modelNotFound: ImageGenerationModelNotFoundError },
  speech: { base: SpeechError, modelNotFound: SpeechModelNotFoundError },
  transcription: { base: TranscriptionError, modelNotFound: TranscriptionModelNotFoundError },
  rerank: { base: RerankError, modelNotFound: RerankModelNotFoundError },
};

const CLASSES_BY_ERROR_TYPE: ReadonlyMap<string, FaultlineErrorClass> = new Map<string, FaultlineErrorClass>([
  ['FaultlineError', FaultlineError],
  ...Object.values(FAMILY_CLASSES).flatMap(
    ({ base, modelNotFound }) =>
      [
        [safeGet(base, 'errorType') as string, base],
        [safeGet(modelNotFound, 'errorType') as string, modelNotFound],
      ] as const,
  ),
]);

/**
 * The class for a family and a classification: the family's `*ModelNotFoundError` sibling when the
 * reason is `model_not_found`, the family's class otherwise, `FaultlineError` without a family.
 */
export function errorClassFor(family: unknown, classification: ClassificationType): FaultlineErrorClass {
  const key = family === 'image' ? 'image_generation' : family;
  const entry =
    typeof key === 'string' && Object.hasOwn(FAMILY_CLASSES, key)
      ? FAMILY_CLASSES[key as InferenceFamily]
      : undefined;
  if (entry === undefined) return FaultlineError;
  return classification.reason === 'model_not_found' ? entry.modelNotFound : entry.base;
}

/** This package's class for an errorType (used to rebuild an error with extra facts). */
export function errorClassForType(errorType: unknown): FaultlineErrorClass {
  return (typeof errorType === 'string' ? CLASSES_BY_ERROR_TYPE.get(errorType) : undefined) ?? FaultlineError;
}

export interface FaultlineContextErrorOptions {
  readonly cause?: unknown;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly operation?: string | undefined;
}

/**
 * A wrapper for context added by a layer above the call (a step, a job, a tool): it keeps its own
 * errorType and message and inherits the classification of the nearest FaultlineError on its
 * cause chain (cycle-guarded, bounded). With no FaultlineError below it, the cause is classified
 * with the built-in extractors.
 */
export class FaultlineContextError extends FaultlineError {
  static override readonly errorType: string = 'FaultlineContextError';
  declare readonly errorType: 'FaultlineContextError';

  constructor(message?: unknown, options: FaultlineContextErrorOptions = {}) {
    const cause = safeGet(options, 'cause');
    let inherited: unknown;
    for (const link of causeLinks(cause)) {
      if (hasFaultlineMarker(link) && readClassification(safeGet(link, 'classification')) !== undefined) {
        inherited = link;
        break;
      }
    }
    const metadata =
      inherited !== undefined
        ? (safeGet(inherited, 'metadata') as ProviderErrorMetadata)
        : extractMetadata(cause, undefined, {});
    const classification =
      inherited !== undefined ? readClassification(safeGet(inherited, 'classification')) : undefined;
    super(message, {
      cause,
      metadata,
      classification,
      provider: safeGet(options, 'provider') as string | undefined,
      model: safeGet(options, 'model') as string | undefined,
      operation: safeGet(options, 'operation') as string | undefined,
    });
  }
}
