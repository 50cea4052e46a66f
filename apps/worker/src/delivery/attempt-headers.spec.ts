import { boundedHeaders, HEADER_COUNT_LIMIT, HEADER_VALUE_LIMIT } from './attempt-headers';

describe('boundedHeaders', () => {
  it('lower-cases names and gives every value as a string', () => {
    expect(boundedHeaders({ 'Content-Type': 'application/json', 'Content-Length': 42, 'X-Receiver': 'yes' })).toEqual({
      'content-type': 'application/json',
      'content-length': '42',
      'x-receiver': 'yes',
    });
  });

  it('joins the values of a repeated header, and of names differing only in case', () => {
    expect(boundedHeaders({ 'set-cookie': ['a=1', 'b=2'], Vary: 'Accept', vary: 'Origin' })).toEqual({
      'set-cookie': 'a=1, b=2',
      vary: 'Accept, Origin',
    });
  });

  it(`keeps the first ${HEADER_COUNT_LIMIT} headers only`, () => {
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, index) => [`X-Header-${index}`, String(index)]));
    const kept = boundedHeaders(many);
    expect(Object.keys(kept)).toHaveLength(HEADER_COUNT_LIMIT);
    expect(kept).toMatchObject({ 'x-header-0': '0', 'x-header-49': '49' });
    expect(kept).not.toHaveProperty('x-header-50');
  });

  it(`cuts each value to its first ${HEADER_VALUE_LIMIT} characters`, () => {
    const kept = boundedHeaders({ 'x-long': 'a'.repeat(5000), 'x-joined': ['b'.repeat(1000), 'c'.repeat(1000)] });
    expect(kept['x-long']).toBe('a'.repeat(HEADER_VALUE_LIMIT));
    expect(kept['x-joined']).toHaveLength(HEADER_VALUE_LIMIT);
    expect(kept['x-joined'].startsWith(`${'b'.repeat(1000)}, c`)).toBe(true);
  });

  it('leaves out a header without a value and keeps one named __proto__ as a header', () => {
    expect(boundedHeaders({ 'x-present': 'yes', 'x-missing': undefined })).toEqual({ 'x-present': 'yes' });
    const kept = boundedHeaders(JSON.parse('{"__proto__": "x"}') as Record<string, string>);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(Object.entries(kept)).toEqual([['__proto__', 'x']]);
  });
});
