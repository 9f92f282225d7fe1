import { describe, expect, it } from 'vitest';
import { describeTextBody, prototypeNames, safeHasOwn } from './read.ts';

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

describe('describeTextBody', () => {
  it('names a page by its title or first heading, never by the page, and keeps a short line as it is', () => {
    expect(describeTextBody('<html><title> 502 Bad Gateway </title><p>SECRET</p></html>', 502)).toBe(
      '502 Bad Gateway',
    );
    expect(describeTextBody('<html><body><h1>Forbidden</h1></body></html>', 403)).toBe('Forbidden');
    expect(describeTextBody('<html><body>SECRET</body></html>', 503)).toBe('HTTP 503 with a HTML body');
    expect(describeTextBody('  404 page not found\n', 404)).toBe('404 page not found');
    expect(describeTextBody('two\nlines', 400)).toBe('HTTP 400 with a text body');
    expect(describeTextBody('x'.repeat(201), undefined)).toBe('HTTP error with a text body');
    expect(describeTextBody('x'.repeat(300), 400, 300)).toBe('x'.repeat(300));
    expect(describeTextBody('404 page not found', 404, 0)).toBe('HTTP 404 with a text body');
    expect(describeTextBody(' \n ', 500)).toBe('HTTP 500 with an empty body');
  });
});
