// Lenient readers of vendor bodies for the adapters' `*-error-shape.ts`, without zod.
//
// STYLE asks for lenient zod schemas there; issue 17's import goal overrides it: zod costs about
// 60 ms to import, three times the rest of an adapter, and every adapter loads its shapes. These
// readers are the few zod combinators the shapes use, written to give zod 4's output exactly (each
// adapter's differential test compares its readers with the zod schemas they replace): a loose
// object copies unknown keys (`for…in`), an optional key present as `undefined` stays present, a
// `.catch()` answers its fallback, a union the first option that passes. Hand-written on purpose:
// zod/mini still loads zod's core (about 50 ms), and a small validator library (valibot imports
// in about 5 ms) would be a second schema library beside the public zod schemas and a new package
// in every install, which the footprint goal (nothing but faultline and zod) rules out. These ~170
// lines are the whole of what the shapes need. Each reader has zod's `safeParse`, so call sites
// read the same.
import type { CheckResult } from './checks.ts';

const INVALID: unique symbol = Symbol('invalid');
type Invalid = typeof INVALID;

/** How a reader behaves as an object field (zod's optin/optout): may the key be absent? */
type Presence = 'required' | 'optional';

/** A lenient reader: zod's `safeParse` plus what the object readers need. */
export interface Reader<T> {
  safeParse(value: unknown): CheckResult<T>;
  /** @internal The output, or INVALID. May throw (a hostile getter); `safeParse` never does. */
  readonly read: (value: unknown) => T | Invalid;
  /** @internal Whether an absent key is accepted (and left out of the output). */
  readonly presence: Presence;
  optional(): Reader<T | undefined>;
  nullable(): Reader<T | null>;
  nullish(): Reader<T | null | undefined>;
  /** zod's `.catch(value)`: an invalid value reads as `value` (of the reader's own type, as in zod). */
  catch(fallback: T): Reader<T>;
}

/** The type a reader gives, like `z.infer`. */
export type Infer<R> = R extends Reader<infer T> ? T : never;

const FAILED: CheckResult<never> = Object.freeze({ success: false });

function reader<T>(read: (value: unknown) => T | Invalid, presence: Presence = 'required'): Reader<T> {
  const self: Reader<T> = {
    read,
    presence,
    safeParse(value: unknown): CheckResult<T> {
      let result: T | Invalid;
      try {
        result = read(value);
      } catch {
        return FAILED;
      }
      return result === INVALID ? FAILED : { success: true, data: result };
    },
    optional: () =>
      reader<T | undefined>((value) => (value === undefined ? undefined : read(value)), 'optional'),
    nullable: () => reader<T | null>((value) => (value === null ? null : read(value)), presence),
    nullish: () =>
      reader<T | null | undefined>(
        (value) => (value === undefined || value === null ? value : read(value)),
        'optional',
      ),
    catch: (fallback: T) =>
      reader<T>((value) => {
        const result = read(value);
        return result === INVALID ? fallback : result;
      }, presence),
  };
  return self;
}

/** zod's object input: any non-null object that is not an array. */
function isObjectInput(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** zod's `isPlainObject` (a record's input): an object whose constructor's prototype is ordinary. */
function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (!isObjectInput(value)) return false;
  const maker = value.constructor;
  if (maker === undefined || typeof maker !== 'function') return true;
  const prototype: unknown = maker.prototype;
  return isObjectInput(prototype) && Object.hasOwn(prototype, 'isPrototypeOf');
}

type Shape = Record<string, Reader<unknown>>;
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: undefined extends Infer<S[K]> ? K : never;
}[keyof S];
type ObjectOf<S extends Shape> = {
  [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]>;
} & { [K in OptionalKeys<S>]?: Infer<S[K]> };

function objectReader<S extends Shape, Extra>(shape: S, loose: boolean): Reader<ObjectOf<S> & Extra> {
  const keys = Object.keys(shape);
  const known = new Set(keys);
  return reader((input) => {
    if (!isObjectInput(input)) return INVALID;
    const output: Record<string, unknown> = {};
    for (const key of keys) {
      const field = shape[key] as Reader<unknown>;
      if (!(key in input)) {
        // zod: an absent key that may be absent contributes nothing; one that may not fails the
        // object, even when its reader (a `.catch()`) would make something of `undefined`.
        if (field.presence === 'optional') continue;
        return INVALID;
      }
      const result = field.read(input[key]);
      if (result === INVALID) return INVALID;
      output[key] = result;
    }
    if (loose)
      for (const key in input) {
        // zod never copies __proto__ (it would replace the output's prototype).
        if (known.has(key) || key === '__proto__') continue;
        output[key] = input[key];
      }
    return output as ObjectOf<S> & Extra;
  });
}

export const lenient = {
  /** `z.object(shape)`: unknown keys dropped. */
  object: <S extends Shape>(shape: S): Reader<ObjectOf<S>> => objectReader<S, unknown>(shape, false),
  /** `z.looseObject(shape)` / `.loose()`: unknown keys kept. */
  looseObject: <S extends Shape>(shape: S): Reader<ObjectOf<S> & Record<string, unknown>> =>
    objectReader<S, Record<string, unknown>>(shape, true),
  string: (): Reader<string> => reader((value) => (typeof value === 'string' ? value : INVALID)),
  /** `z.number()`: finite numbers. */
  number: (): Reader<number> =>
    reader((value) => (typeof value === 'number' && Number.isFinite(value) ? value : INVALID)),
  /** `z.number().int()` (zod 4: a safe integer), with `.nonnegative()` when `nonNegative`. */
  integer: (nonNegative = false): Reader<number> =>
    reader((value) =>
      typeof value === 'number' && Number.isSafeInteger(value) && (!nonNegative || value >= 0)
        ? value
        : INVALID,
    ),
  /** `z.number().nonnegative()`. */
  nonNegativeNumber: (): Reader<number> =>
    reader((value) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : INVALID)),
  /** `z.unknown()`: anything, as it is. */
  unknown: (): Reader<unknown> => reader((value) => value, 'optional'),
  literal: <const L extends string>(literal: L): Reader<L> =>
    reader((value) => (value === literal ? literal : INVALID)),
  enum: <const L extends string>(values: readonly L[]): Reader<L> => {
    const set: ReadonlySet<unknown> = new Set(values);
    return reader((value) => (set.has(value) ? (value as L) : INVALID));
  },
  /** `z.union(options)`: the first option that passes. */
  union: <const R extends readonly Reader<unknown>[]>(options: R): Reader<Infer<R[number]>> =>
    reader((value) => {
      for (const option of options) {
        const result = option.read(value);
        if (result !== INVALID) return result as Infer<R[number]>;
      }
      return INVALID;
    }),
  /** `z.array(element)`. */
  array: <T>(element: Reader<T>): Reader<T[]> =>
    reader((value) => {
      if (!Array.isArray(value)) return INVALID;
      const output: T[] = [];
      for (let index = 0; index < value.length; index++) {
        const result = element.read(value[index]);
        if (result === INVALID) return INVALID;
        output.push(result);
      }
      return output;
    }),
  /** `z.record(z.string(), z.unknown())`: a plain object's own enumerable string keys, values as they are. */
  record: (): Reader<Record<string, unknown>> =>
    reader((value) => {
      if (!isPlainObject(value)) return INVALID;
      const output: Record<string, unknown> = {};
      for (const key of Reflect.ownKeys(value)) {
        if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue;
        if (typeof key !== 'string') return INVALID;
        output[key] = value[key];
      }
      return output;
    }),
};
