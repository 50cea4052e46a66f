import {
  bulkListProblem,
  descriptionProblem,
  metadataProblem,
  nameProblem,
  statusProblem,
  tagsProblem,
  typeProblem,
} from './resource-field.validators';

describe('resource field rules (docs/api.md#resource-fields)', () => {
  it('name: 1-100 characters after trimming', () => {
    expect(nameProblem('x')).toBeNull();
    expect(nameProblem(` ${'x'.repeat(100)} `)).toBeNull();
    expect(nameProblem(undefined)).toBeNull();
    for (const bad of ['', '   ', 'x'.repeat(101), null, 5, 'a\u0000b', '\ud800']) expect(nameProblem(bad)).not.toBeNull();
  });

  it('counts characters as JSON Schema does, by code point: an emoji is one, not two UTF-16 units', () => {
    const emoji = '\u{1F600}';
    expect(nameProblem(emoji.repeat(100))).toBeNull();
    expect(nameProblem(emoji.repeat(101))).not.toBeNull();
    expect(descriptionProblem(emoji.repeat(500))).toBeNull();
    expect(tagsProblem([emoji.repeat(50)])).toBeNull();
    expect(metadataProblem({ [emoji.repeat(40)]: emoji.repeat(500) }, { nullable: false })).toBeNull();
    expect(metadataProblem({ [emoji.repeat(41)]: 1 }, { nullable: false })).not.toBeNull();
  });

  it('description: up to 500 characters, or null', () => {
    expect(descriptionProblem(null)).toBeNull();
    expect(descriptionProblem('')).toBeNull();
    expect(descriptionProblem('d'.repeat(500))).toBeNull();
    expect(descriptionProblem('d'.repeat(501))).not.toBeNull();
    expect(descriptionProblem(1)).not.toBeNull();
  });

  it('type: standard or premium; enterprise is named as the legacy name', () => {
    expect(typeProblem('standard')).toBeNull();
    expect(typeProblem('premium')).toBeNull();
    expect(typeProblem('enterprise')).toMatch(/legacy/);
    expect(typeProblem('gold')).toBe('must be one of: standard, premium');
    expect(typeProblem(null)).not.toBeNull();
  });

  it('status: active or archived', () => {
    expect(statusProblem('archived')).toBeNull();
    expect(statusProblem('deleted')).not.toBeNull();
  });

  it('tags: up to 20 distinct strings of 1-50 characters', () => {
    expect(tagsProblem([])).toBeNull();
    expect(tagsProblem(Array.from({ length: 20 }, (_, i) => `t${i}`))).toBeNull();
    expect(tagsProblem(Array.from({ length: 21 }, (_, i) => `t${i}`))).toMatch(/at most 20/);
    expect(tagsProblem(['a', 'a'])).toMatch(/distinct/);
    expect(tagsProblem(['t'.repeat(51)])).toMatch(/item 0/);
    expect(tagsProblem([''])).not.toBeNull();
    expect(tagsProblem([1])).not.toBeNull();
    expect(tagsProblem('a')).not.toBeNull();
  });

  it('metadata: up to 50 keys of 1-40 characters, scalar values', () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect(metadataProblem(fifty, { nullable: false })).toBeNull();
    expect(metadataProblem({ ...fifty, more: 1 }, { nullable: false })).toMatch(/at most 50 keys/);
    expect(metadataProblem({ ['k'.repeat(40)]: 's'.repeat(500), b: true, n: null, x: 1.5 }, { nullable: false })).toBeNull();
    expect(metadataProblem({ ['k'.repeat(41)]: 1 }, { nullable: false })).toMatch(/1-40 characters/);
    expect(metadataProblem({ '': 1 }, { nullable: false })).not.toBeNull();
    expect(metadataProblem({ k: 's'.repeat(501) }, { nullable: false })).not.toBeNull();
    expect(metadataProblem({ k: {} }, { nullable: false })).not.toBeNull();
    expect(metadataProblem({ k: [] }, { nullable: false })).not.toBeNull();
    expect(metadataProblem([], { nullable: false })).not.toBeNull();
    expect(metadataProblem(null, { nullable: false })).not.toBeNull();
    expect(metadataProblem(null, { nullable: true })).toBeNull();
  });

  it('bulk lists: 1-100 items, none of them a list', () => {
    expect(bulkListProblem([1], 100, 'resources')).toBeNull();
    expect(bulkListProblem([], 100, 'resources')).not.toBeNull();
    expect(bulkListProblem(new Array(101).fill(1), 100, 'resources')).toMatch(/at most 100/);
    expect(bulkListProblem('x', 100, 'resources')).not.toBeNull();
    expect(bulkListProblem([{ name: 'a' }, [{ name: 'a' }]], 100, 'resources')).toBe('must list resources as objects; item 1 is an array');
  });
});
