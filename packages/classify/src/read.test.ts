import { describe, expect, it } from 'vitest';
import { prototypeNames, safeHasOwn } from './read.ts';

class BaseError extends Error {}
class RateLimitError extends BaseError {}

const hostile = new Proxy(
  {},
  {
    getPrototypeOf() {
      throw new Error('trap');
    },
    getOwnPropertyDescriptor() {
      throw new Error('trap');
    },
  },
);

describe('prototypeNames', () => {
  it('lists a real class chain nearest first, without Object', () => {
    expect(prototypeNames(new RateLimitError('x'))).toEqual(['RateLimitError', 'BaseError', 'Error']);
    expect(prototypeNames({})).toEqual([]);
  });

  it('is total and bounded', () => {
    expect(prototypeNames(hostile)).toEqual([]);
    expect(prototypeNames(null)).toEqual([]);
    expect(prototypeNames(42)).toEqual(['Number']);
    let deep: object = Object.create(null);
    for (let index = 0; index < 50; index += 1) deep = Object.create(deep);
    expect(prototypeNames(deep).length).toBeLessThanOrEqual(10);
  });
});

describe('safeHasOwn', () => {
  it('answers like Object.hasOwn and never throws', () => {
    expect(safeHasOwn({ status: 429 }, 'status')).toBe(true);
    expect(safeHasOwn(Object.create({ status: 429 }), 'status')).toBe(false);
    expect(safeHasOwn(hostile, 'status')).toBe(false);
    expect(safeHasOwn(undefined, 'status')).toBe(false);
    expect(safeHasOwn('text', 'length')).toBe(false);
  });
});
