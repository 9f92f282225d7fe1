// The differential test of an adapter's zod-free shape readers (`*-error-shape.ts`, built with the
// toolkit's `lenient`) against the zod schemas they replaced (kept in the test): on values generated
// from the zod schema itself (valid ones, each field sometimes absent, undefined, null, mistyped, or
// beside a stray key) and on arbitrary values, the reader must give zod's verdict and zod's output,
// key order and `undefined`-valued keys included.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { z } from 'zod';

interface SafeParser {
  safeParse(value: unknown): { success: boolean; data?: unknown };
}

/** Every object's keys, depth first, so that a different key order is a difference. */
function keysOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return null;
  return Object.entries(value).map(([key, inner]) => [key, keysOf(inner)]);
}

function verdict(parser: SafeParser, value: unknown) {
  const result = parser.safeParse(value);
  return result.success
    ? { success: true, data: result.data, keys: keysOf(result.data) }
    : { success: false };
}

class Holder {
  readonly type = 'error';
}
const wrong: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    'x',
    0,
    -1,
    1.5,
    2 ** 53,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    true,
    [],
    {},
  ),
  // Objects that are not plain (zod's records refuse them, its objects accept them).
  fc.constantFrom(new Date(0), new Holder(), new Map(), Object.create(null)),
  fc.anything({ maxDepth: 1 }),
);

/** Mostly `valid`, sometimes a wrong value. */
const mostly = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: wrong, weight: 1 });

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly element?: z.ZodType;
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
}

/** Values shaped like `schema`: valid ones and near misses, from the schema's own definition. */
export function arbitraryOf(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  switch (def.type) {
    case 'object': {
      const shape = def.shape ?? {};
      const fields = Object.fromEntries(
        Object.entries(shape).map(([key, inner]) => [key, arbitraryOf(inner)]),
      );
      const keys = Object.keys(shape);
      return mostly(
        fc
          .tuple(
            fc.record(fields, { requiredKeys: [] }),
            fc.subarray(keys, { maxLength: Math.min(1, keys.length) }),
            fc.oneof(
              { arbitrary: fc.constant({}), weight: 4 },
              {
                arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), fc.anything({ maxDepth: 1 }), {
                  maxKeys: 2,
                }),
                weight: 1,
              },
            ),
          )
          .map(([value, undefinedKeys, stray]) => {
            const result: Record<string, unknown> = { ...stray, ...value };
            for (const key of undefinedKeys) result[key] = undefined;
            return result;
          }),
      );
    }
    case 'string':
      return mostly(
        fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('client', 'server', 'error', 'response')),
      );
    case 'number':
      return mostly(fc.oneof(fc.integer({ min: -3, max: 600 }), fc.double(), fc.constantFrom(-0, 2 ** 53)));
    case 'boolean':
      return mostly(fc.boolean());
    case 'optional':
      return fc.oneof(arbitraryOf(def.innerType as z.ZodType), fc.constant(undefined));
    case 'nullable':
      return fc.oneof(arbitraryOf(def.innerType as z.ZodType), fc.constant(null));
    case 'catch':
    case 'default':
      return arbitraryOf(def.innerType as z.ZodType);
    case 'union':
      return fc.oneof(...(def.options ?? []).map(arbitraryOf));
    case 'array':
      return mostly(fc.array(arbitraryOf(def.element as z.ZodType), { maxLength: 3 }));
    case 'record':
      return mostly(fc.dictionary(fc.string({ maxLength: 4 }), fc.anything({ maxDepth: 1 }), { maxKeys: 3 }));
    case 'literal':
      return mostly(fc.constantFrom(...(def.values ?? [])));
    case 'enum':
      return mostly(fc.constantFrom(...Object.values(def.entries ?? {})));
    default:
      return fc.anything({ maxDepth: 2 });
  }
}

/**
 * One vitest case per reader: it must give its zod schema's verdict and output on values generated
 * from the schema (and on arbitrary values), and accept most of the schema-shaped values (a reader
 * that rejected everything would agree on every invalid value).
 */
export function lenientDifferential(
  pairs: Readonly<Record<string, readonly [reader: SafeParser, schema: z.ZodType]>>,
) {
  for (const [name, [reader, schema]] of Object.entries(pairs)) {
    it(`${name}: the zod schema's verdict and output`, () => {
      let valid = 0;
      fc.assert(
        fc.property(
          fc.oneof({ arbitrary: arbitraryOf(schema), weight: 9 }, { arbitrary: fc.anything(), weight: 1 }),
          (value) => {
            const expected = verdict(schema, value);
            if (expected.success) valid++;
            expect(verdict(reader, value)).toStrictEqual(expected);
          },
        ),
        { numRuns: 3000 },
      );
      expect(valid).toBeGreaterThan(300);
    });
  }
}
