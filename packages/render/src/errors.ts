import type {
  Classification as ClassificationType,
  DeliveredOutput,
  ProviderErrorMetadata,
} from '@faultline/classify';
// The toolkit entry, not `@faultline/classify`: it loads no zod (issue 17, adapter import cost).
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
  setOwnErrorCheck,
  TRUSTED_CLASSIFICATIONS,
  trustClassification,
} from './identity.ts';
import { plainRecord } from './plain-record.ts';
import {
  type AttemptRecord,
  type ErrorReport,
  minimalReport,
  plainReport,
  readAttemptRecord,
  reportFromChain,
} from './report.ts';
import { scrubAndCut, scrubSecrets } from './secrets.ts';
import { describeThrown, normaliseCause } from './thrown-value.ts';

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
}

function safeText(value: unknown, maxLength = 200): string | undefined {
  return typeof value === 'string' && value.length > 0 ? scrubAndCut(value, maxLength) : undefined;
}

/** A shallow copy of the metadata with `rawBody` made non-enumerable; total on any input. */
function copyMetadata(metadata: unknown): ProviderErrorMetadata {
  // The members are gathered first and the copy is made for their count (memory: plain-record.ts).
  const keys: string[] = [];
  const values: unknown[] = [];
  let rawSlot = 0;
  try {
    if (metadata !== null && typeof metadata === 'object') {
      for (const key of Object.keys(metadata).slice(0, 100)) {
        if (key === 'rawBody') continue;
        const value = safeGet(metadata, key);
        keys.push(key);
        // The metadata is an enumerable field that loggers write: its text is scrubbed too.
        values.push(typeof value === 'string' ? scrubSecrets(value) : value);
      }
      // A raw body kept as text is a member of the copy too (one pending its first read is a getter).
      const raw = Object.getOwnPropertyDescriptor(metadata, 'rawBody');
      if (raw !== undefined && typeof raw.value === 'string') rawSlot = 1;
    }
  } catch {
    // A Proxy whose ownKeys (or descriptor) trap throws: keep what was read.
  }
  defaultMember(keys, values, 'provider', 'unknown');
  defaultMember(keys, values, 'message', '');
  defaultMember(keys, values, 'origin', 'unknown');
  const copy = plainRecord(keys.length + rawSlot);
  for (let index = 0; index < keys.length; index++) copy[keys[index]!] = values[index];
  // Still unwritten if the extractor's body has not been read (classify's `copyRawBody`).
  copyRawBody(metadata, copy);
  return copy as ProviderErrorMetadata;
}

/** Gives `key` the value `fallback` unless it holds a string: in its place if present, else last. */
function defaultMember(keys: string[], values: unknown[], key: string, fallback: string): void {
  const at = keys.indexOf(key);
  if (at === -1) {
    keys.push(key);
    values.push(fallback);
  } else if (typeof values[at] !== 'string') values[at] = fallback;
}

function readClassification(value: unknown): ClassificationType | undefined {
  try {
    // zod-free, with `Classification.safeParse`'s verdict and output (classify's checks.ts).
    return parseClassification(value);
  } catch {
    return undefined;
  }
}

// Computed once per class (STYLE: compute once what is fixed): the walk reads every ancestor's
// static through safeGet, which cost as much as the rest of the constructor.
const ERROR_TYPES_OF_CLASS = new WeakMap<object, readonly string[]>();

/** The errorTypes of a class and its ancestors, read from their static `errorType`, frozen; memoised. */
function errorTypesOf(errorClass: unknown): readonly string[] {
  if (typeof errorClass !== 'function') return Object.freeze([]);
  const known = ERROR_TYPES_OF_CLASS.get(errorClass);
  if (known !== undefined) return known;
  const types = Object.freeze(readErrorTypes(errorClass));
  ERROR_TYPES_OF_CLASS.set(errorClass, types);
  // Defined once on the class's prototype rather than on every instance.
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

function readErrorTypes(errorClass: unknown): string[] {
  const types: string[] = [];
  let current = errorClass;
  while (typeof current === 'function' && types.length < 16) {
    const type = safeGet(current, 'errorType');
    if (typeof type === 'string' && !types.includes(type)) types.push(type);
    current = Object.getPrototypeOf(current);
  }
  return types;
}

/**
 * The work a FaultlineError defers to its first read: given by `classifyError`, which captured at
 * throw time what could change later (the signal's state, the clock, the attempt facts). `fields`
 * runs extraction and classification and gives the constructor's message and options; it is
 * called at most once. Internal: not exported from the package.
 */
export interface DeferredFields {
  fields(): { readonly message: unknown; readonly options: FaultlineErrorOptions };
}

/** The key under which `classifyError` hands a constructor its deferred work (module-private). */
export const DEFERRED: unique symbol = Symbol('faultline.deferred') as never;

/** What the constructor computes from its message and options (now, or on the first read). */
interface Prepared {
  readonly text: string;
  readonly classification: ClassificationType;
  readonly metadata: ProviderErrorMetadata;
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly operation: string | undefined;
  readonly attempts: AttemptRecord | undefined;
}

function prepare(message: unknown, options: unknown): Prepared {
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
  const attempts = safeGet(options, 'attempts');
  return {
    text,
    classification,
    metadata,
    provider: safeText(safeGet(options, 'provider')),
    model: safeText(safeGet(options, 'model')),
    operation: safeText(safeGet(options, 'operation')),
    attempts: attempts === undefined ? undefined : readAttemptRecord(attempts),
  };
}

/** An own field as an assignment would make it (enumerable, writable, configurable). */
function defineField(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The fields read on first access, in the order the error shows them (after `errorType`). */
const LAZY_FIELDS = ['classification', 'metadata', 'provider', 'model', 'operation', 'attempts'] as const;

/**
 * The root of every faultline error. Identity survives duplicate installs and realms through the
 * `Symbol.for('faultline.error')` marker: use `FaultlineError.isInstance(value)` (or
 * `CompletionError.isInstance(value)` for a family), never `instanceof`. Building one never throws.
 *
 * An error from `classifyError` is built at throw time around its cause alone (no stack of its
 * own, nothing read yet); extraction, classification and the message run once, on the first read
 * of any of its fields, `message`, `name`, `stack`, `toErrorReport()`, `toJSON()` or
 * `util.inspect`, and the fields then become own properties as if they had been set at
 * construction (STYLE: compute lazily what a caller may never read).
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
  declare readonly cause: unknown;
  /** The deferred work until the first read; `undefined` once the fields are own properties. */
  #pending: DeferredFields | undefined;

  constructor(message?: unknown, options: FaultlineErrorOptions = {}) {
    const rawCause = safeGet(options, 'cause');
    const hasCause = rawCause !== undefined;
    const cause = hasCause ? normaliseCause(rawCause) : undefined;
    const deferred = safeGet(options, DEFERRED) as DeferredFields | undefined;
    const prepared = deferred === undefined ? prepare(message, options) : undefined;
    // A wrapping error needs no stack of its own: its cause holds the frames that matter, and
    // capturing them again is most of the cost of building it (as Node core does for its own
    // errors). An error with no cause keeps its stack.
    const stackTraceLimit = Error.stackTraceLimit;
    if (hasCause) Error.stackTraceLimit = 0;
    try {
      // A deferred error has no own `message` until it is read (the prototype's getter computes it).
      super(prepared?.text, hasCause ? { cause } : undefined);
    } finally {
      if (hasCause) Error.stackTraceLimit = stackTraceLimit;
    }
    this.errorType =
      new.target === FaultlineError ? 'FaultlineError' : (errorTypesOf(new.target)[0] ?? 'FaultlineError');
    this.#pending = deferred;
    if (prepared !== undefined) install(this, prepared);
  }

  /** True when `value` was built by this copy's constructor (its classification is validated and frozen). */
  static #isOwn(value: unknown): value is FaultlineError {
    return typeof value === 'object' && value !== null && #pending in value;
  }

  /** Runs the deferred work once and installs the fields; a no-op once done (or on a foreign value). */
  static #materialise(error: unknown): void {
    if (!FaultlineError.#isOwn(error)) return;
    const pending = error.#pending;
    if (pending === undefined) return;
    // Cleared first: a re-entrant read during the work sees absent fields, never a loop.
    error.#pending = undefined;
    let message: unknown;
    let options: FaultlineErrorOptions;
    try {
      ({ message, options } = pending.fields());
    } catch {
      // The deferred work is total; this keeps the first read total even if it were not.
      message = describeThrown(error.cause);
      options = {};
    }
    let prepared: Prepared;
    try {
      prepared = prepare(message, options);
    } catch {
      prepared = prepare(describeThrown(error.cause), {});
    }
    Object.defineProperty(error, 'message', { value: prepared.text, writable: true, configurable: true });
    install(error, prepared);
  }

  /** The deferred work of an error this copy built, while it has not run (for render's retry loop). */
  static pendingOf(error: unknown): DeferredFields | undefined {
    return FaultlineError.#isOwn(error) ? error.#pending : undefined;
  }

  static {
    // The class's own name, spelled out: a bundler renames a class whose body refers to it (esbuild
    // builds this one as `class _FaultlineError`), and `util.inspect`, `console.log` and Node's
    // uncaught-error output print the constructor's name ("_FaultlineError: …").
    Object.defineProperty(FaultlineError, 'name', { value: 'FaultlineError', configurable: true });
    const proto = FaultlineError.prototype;
    Object.defineProperty(proto, FAULTLINE_ERROR_MARKER, { value: true });
    errorTypesOf(FaultlineError);
    for (const key of LAZY_FIELDS) {
      Object.defineProperty(proto, key, {
        configurable: true,
        get(this: FaultlineError) {
          FaultlineError.#materialise(this);
          // Installed now when present (this getter is not reached again); absent otherwise.
          return Object.hasOwn(this, key) ? this[key] : undefined;
        },
        set(this: FaultlineError, value: unknown) {
          FaultlineError.#materialise(this);
          if (Object.hasOwn(this, key)) (this as unknown as Record<string, unknown>)[key] = value;
          else defineField(this, key, value);
        },
      });
    }
    Object.defineProperty(proto, 'message', {
      configurable: true,
      get(this: FaultlineError) {
        FaultlineError.#materialise(this);
        return Object.hasOwn(this, 'message') ? this.message : '';
      },
      set(this: FaultlineError, value: unknown) {
        FaultlineError.#materialise(this);
        Object.defineProperty(this, 'message', { value, writable: true, configurable: true });
      },
    });
    // `util.inspect`/`console.log` list own enumerable keys before they read `stack`: materialise
    // first so the classification shows. Render imports no node: module, so the symbol is spelled out.
    // Once run, it is shadowed on the instance (non-enumerable `undefined`) and `this` is returned, so
    // the inspector formats the error itself, nested values with their own custom inspection intact.
    const custom = Symbol.for('nodejs.util.inspect.custom');
    Object.defineProperty(proto, custom, {
      configurable: true,
      writable: true,
      value(this: FaultlineError) {
        FaultlineError.#materialise(this);
        try {
          Object.defineProperty(this, custom, { value: undefined, configurable: true, writable: true });
        } catch {
          // A frozen error: the inspector then formats it as it is.
        }
        return this;
      },
    });
    setOwnErrorCheck(FaultlineError.#isOwn);
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

/** Installs the computed fields as own properties, in the order the error has always shown them. */
function install(error: FaultlineError, prepared: Prepared): void {
  Object.defineProperty(error, 'classification', { value: prepared.classification, enumerable: true });
  defineField(error, 'metadata', prepared.metadata);
  if (prepared.provider !== undefined) defineField(error, 'provider', prepared.provider);
  if (prepared.model !== undefined) defineField(error, 'model', prepared.model);
  if (prepared.operation !== undefined) defineField(error, 'operation', prepared.operation);
  if (prepared.attempts !== undefined) defineField(error, 'attempts', prepared.attempts);
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
