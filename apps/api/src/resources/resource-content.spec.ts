import { changedFields, mergeMetadata, ResourceContent } from './resource-content';

describe('mergeMetadata (RFC 7396)', () => {
  it('sets, replaces and removes keys', () => {
    expect(mergeMetadata({ a: 1, b: 'x', c: true }, { b: 'y', c: null, d: 0 })).toEqual({ a: 1, b: 'y', d: 0 });
  });

  it('ignores removing a key that is not there', () => {
    expect(mergeMetadata({ a: 1 }, { z: null })).toEqual({ a: 1 });
  });

  it('keeps a "__proto__" key as data', () => {
    const merged = mergeMetadata({}, JSON.parse('{"__proto__": "x"}') as Record<string, string>);
    expect(Object.keys(merged)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});

describe('changedFields', () => {
  const before: ResourceContent = {
    name: 'n',
    description: null,
    type: 'standard',
    status: 'active',
    metadata: { a: 1, b: 'x' },
    tags: ['t'],
  };

  it('is empty when nothing differs, whatever the order of metadata keys', () => {
    expect(changedFields(before, { ...before, metadata: { b: 'x', a: 1 }, tags: ['t'] })).toEqual({});
  });

  it('gives the prior values of what changed', () => {
    const after: ResourceContent = { ...before, name: 'm', status: 'archived', metadata: { a: 1 }, tags: ['t', 'u'] };
    expect(changedFields(before, after)).toEqual({ name: 'n', status: 'active', metadata: { a: 1, b: 'x' }, tags: ['t'] });
  });

  it('sees a metadata value change from 1 to "1"', () => {
    expect(changedFields(before, { ...before, metadata: { a: '1', b: 'x' } })).toEqual({ metadata: before.metadata });
  });
});
