import { isReplayable } from './idempotency.guard';
import { canonicalJson, requestFingerprint } from './request-fingerprint';

describe('requestFingerprint', () => {
  it('ignores the order of object keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(requestFingerprint('POST', '/v2/resources', { a: 1, b: 2 })).toBe(requestFingerprint('POST', '/v2/resources', { b: 2, a: 1 }));
  });

  it('tells apart method, path with query, and body', () => {
    const base = requestFingerprint('POST', '/v2/resources', { a: 1 });
    expect(requestFingerprint('PATCH', '/v2/resources', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('POST', '/v2/resources/bulk', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('POST', '/v2/resources?x=1', { a: 1 })).not.toBe(base);
    expect(requestFingerprint('POST', '/v2/resources', { a: '1' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v2/resources', [{ a: 1 }])).not.toBe(base);
  });
});

describe('isReplayable', () => {
  it.each([
    [200, true],
    [201, true],
    [204, true],
    [404, true],
    [409, true],
    [412, true],
    [400, false],
    [429, false],
    [500, false],
    [503, false],
  ])('status %i is kept: %p', (status, kept) => {
    expect(isReplayable(status)).toBe(kept);
  });
});
