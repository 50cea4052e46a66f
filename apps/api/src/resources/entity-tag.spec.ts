import { entityTag, ifMatchSatisfied, ifNoneMatchMatches } from './entity-tag';

describe('entity tags', () => {
  it('quotes the version', () => {
    expect(entityTag(3)).toBe('"3"');
  });

  it.each([
    [undefined, true],
    ['*', true],
    ['"3"', true],
    ['"1", "3"', true],
    ['"1","3"', true],
    ['3', true],
    ['"4"', false],
    ['W/"3"', false],
    ['', false],
    ['"33"', false],
  ])('If-Match %p against version 3 is %p', (header, expected) => {
    expect(ifMatchSatisfied(header, 3)).toBe(expected);
  });

  it.each([
    [undefined, false],
    ['*', true],
    ['"3"', true],
    ['W/"3"', true],
    ['"1", W/"3"', true],
    ['3', true],
    ['"4"', false],
    ['W/"4", "5"', false],
    ['', false],
    ['"33"', false],
  ])('If-None-Match %p against version 3 matches: %p', (header, expected) => {
    expect(ifNoneMatchMatches(header, 3)).toBe(expected);
  });
});
