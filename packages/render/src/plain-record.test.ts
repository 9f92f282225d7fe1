import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainRecord } from './plain-record.ts';

// plainRecord only changes where V8 keeps an object's members: every way a caller can look at
// the object must see what it sees of `{}` given the same members in the same order.

const member = fc.tuple(
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('provider', 'message', 'constructor', 'toString', '__proto__'),
  ),
  fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string())),
);

function built(entries: ReadonlyArray<readonly [string, unknown]>, sized: boolean): Record<string, unknown> {
  const target = sized ? plainRecord(entries.length) : {};
  for (const [key, value] of entries) (target as Record<string, unknown>)[key] = value;
  return target as Record<string, unknown>;
}

describe('plainRecord', () => {
  it('is observably the same plain object as `{}` with the same members, at every size', () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 14 }), (entries) => {
        const sized = built(entries, true);
        const plain = built(entries, false);
        expect(Object.getPrototypeOf(sized)).toBe(Object.getPrototypeOf(plain));
        expect(sized.constructor).toBe(plain.constructor);
        expect(Object.keys(sized)).toEqual(Object.keys(plain));
        expect(JSON.stringify(sized)).toBe(JSON.stringify(plain));
        // toEqual with the prototypes checked apart: toStrictEqual reads an own `constructor` member.
        expect({ ...sized }).toEqual({ ...plain });
        const [sizedClone, plainClone] = [structuredClone(sized), structuredClone(plain)];
        expect(sizedClone).toEqual(plainClone);
        expect(Object.getPrototypeOf(sizedClone)).toBe(Object.getPrototypeOf(plainClone));
        expect(sized).toEqual(plain);
        expect(inspect(sized, { depth: 4 })).toBe(inspect(plain, { depth: 4 }));
        expect(Object.prototype.toString.call(sized)).toBe('[object Object]');
      }),
      { numRuns: 300 },
    );
  });

  it('takes a non-enumerable member as `{}` does, and stays extensible and writable', () => {
    const sized = plainRecord(2);
    expect(Object.getPrototypeOf(sized)).toBe(Object.prototype);
    expect(sized.constructor).toBe(Object);
    sized.provider = 'openai';
    Object.defineProperty(sized, 'rawBody', { value: '{}', enumerable: false, configurable: true });
    expect(Object.keys(sized)).toEqual(['provider']);
    expect(sized.rawBody).toBe('{}');
    sized.extra = 1;
    sized.provider = 'groq';
    expect(sized).toStrictEqual({ provider: 'groq', extra: 1 });
    expect(Object.isExtensible(sized)).toBe(true);
  });

  it('gives a fresh object on every call, `{}` past its sizes or for a count that is not one', () => {
    expect(plainRecord(3)).not.toBe(plainRecord(3));
    for (const count of [-1, 0.5, Number.NaN, 1000]) expect(plainRecord(count)).toStrictEqual({});
  });
});
