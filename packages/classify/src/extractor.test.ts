import { describe, expect, it } from 'vitest';
import { attachRawJsonBody, copyRawBody, defineExtractor, MAX_RAW_BODY_LENGTH } from './extractor.ts';
import type { ProviderErrorMetadata } from './schemas.ts';

function metadata(): ProviderErrorMetadata {
  return { provider: 'test', message: 'm', origin: 'http' };
}

describe('attachRawJsonBody', () => {
  it('reads the JSON text of the body, written once, non-enumerable', () => {
    const body = { error: { message: 'slow down', code: 'rate_limit' } };
    const target = attachRawJsonBody(metadata(), body);
    expect(Object.keys(target)).not.toContain('rawBody');
    expect(JSON.stringify(target)).not.toContain('slow down');
    expect(typeof Object.getOwnPropertyDescriptor(target, 'rawBody')?.get).toBe('function');
    expect(target.rawBody).toBe(JSON.stringify(body));
    expect(Object.getOwnPropertyDescriptor(target, 'rawBody')).toEqual({
      value: JSON.stringify(body),
      enumerable: false,
      writable: false,
      configurable: true,
    });
  });

  it('cuts a long body to MAX_RAW_BODY_LENGTH', () => {
    const target = attachRawJsonBody(metadata(), { text: 'x'.repeat(MAX_RAW_BODY_LENGTH * 2) });
    expect(target.rawBody?.length).toBe(MAX_RAW_BODY_LENGTH);
  });

  it('writes a primitive at once, and attaches nothing for bytes or undefined', () => {
    const text = attachRawJsonBody(metadata(), 'plain');
    expect(Object.getOwnPropertyDescriptor(text, 'rawBody')?.value).toBe('"plain"');
    expect('rawBody' in attachRawJsonBody(metadata(), new Uint8Array([1, 2]))).toBe(false);
    expect('rawBody' in attachRawJsonBody(metadata(), undefined)).toBe(false);
  });

  it('never throws on read: a throwing getter, a revoked Proxy, a cycle, a frozen metadata', () => {
    const hostile = {
      get boom() {
        throw new Error('getter');
      },
    };
    expect(attachRawJsonBody(metadata(), hostile).rawBody).toBeUndefined();
    const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
    const revoked = attachRawJsonBody(metadata(), proxy);
    revoke();
    expect(revoked.rawBody).toBeUndefined();
    const revokedAlready = Proxy.revocable({}, {});
    revokedAlready.revoke();
    expect(() => attachRawJsonBody(metadata(), revokedAlready.proxy)).not.toThrow();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(attachRawJsonBody(metadata(), cycle).rawBody).toBeUndefined();
    const frozen = Object.freeze(attachRawJsonBody(metadata(), { a: 1 }));
    expect(frozen.rawBody).toBe('{"a":1}');
    expect(frozen.rawBody).toBe('{"a":1}');
  });
});

describe('copyRawBody', () => {
  it('keeps an unread body unwritten in the copy, and copies a written one', () => {
    const body = { error: 'e' };
    const from = attachRawJsonBody(metadata(), body);
    const lazy = metadata();
    copyRawBody(from, lazy);
    expect(typeof Object.getOwnPropertyDescriptor(lazy, 'rawBody')?.get).toBe('function');
    expect(lazy.rawBody).toBe('{"error":"e"}');
    // The source is still unread, and reads the same text.
    expect(typeof Object.getOwnPropertyDescriptor(from, 'rawBody')?.get).toBe('function');
    expect(from.rawBody).toBe('{"error":"e"}');
    const written = metadata();
    copyRawBody(from, written);
    expect(Object.getOwnPropertyDescriptor(written, 'rawBody')?.value).toBe('{"error":"e"}');
  });

  it('is total on any source: a Proxy whose traps throw, a primitive, a frozen target', () => {
    const trap = () => {
      throw new Error('trap');
    };
    const target = metadata();
    copyRawBody(new Proxy({}, { get: trap, getOwnPropertyDescriptor: trap }), target);
    copyRawBody(42, target);
    expect('rawBody' in target).toBe(false);
    const frozen = Object.freeze(metadata());
    expect(() => copyRawBody(attachRawJsonBody(metadata(), { a: 1 }), frozen)).not.toThrow();
  });

  it("keeps the body unwritten through defineExtractor's provider fix", () => {
    const extractor = defineExtractor({
      provider: 'fixed',
      extract: () =>
        attachRawJsonBody({ provider: 'other', message: 'm', origin: 'http' as const }, { b: 2 }),
    });
    const result = extractor.extract(new Error('x'))!;
    expect(result.provider).toBe('fixed');
    expect(typeof Object.getOwnPropertyDescriptor(result, 'rawBody')?.get).toBe('function');
    expect(result.rawBody).toBe('{"b":2}');
  });
});
