import { ID_PREFIX, isId, newId, newOpaqueId } from './ids';

const CROCKFORD_ID = (prefix: string): RegExp => new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`);

describe('ids (docs/api.md#identifiers)', () => {
  it.each(Object.values(ID_PREFIX))('makes %s_ ids of 26 Crockford base32 characters', (prefix) => {
    expect(newId(prefix)).toMatch(CROCKFORD_ID(prefix));
  });

  it('encodes the time first, so ids of later milliseconds sort after earlier ones', () => {
    const start = Date.UTC(2026, 0, 1);
    const ids = [0, 1, 2, 1000, 60_000, 86_400_000].map((offset) => newId('res', start + offset));
    expect([...ids].sort()).toEqual(ids);
    expect(newId('res', start).slice(4, 14)).toBe(newId('res', start).slice(4, 14));
  });

  it('keeps the time part stable for the same millisecond and varies the random part', () => {
    const now = Date.UTC(2026, 5, 15, 12, 0, 0, 123);
    const a = newOpaqueId(now);
    const b = newOpaqueId(now);
    expect(a.slice(0, 10)).toBe(b.slice(0, 10));
    expect(a.slice(10)).not.toBe(b.slice(10));
  });

  it('encodes the epoch and the largest 48-bit time at the edges of the alphabet', () => {
    expect(newOpaqueId(0).slice(0, 10)).toBe('0000000000');
    expect(newOpaqueId(2 ** 48 - 1).slice(0, 10)).toBe('7ZZZZZZZZZ');
  });

  it('does not repeat across many ids made in the same millisecond', () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('evt', now)));
    expect(ids.size).toBe(20_000);
  });

  describe('isId', () => {
    const good = newId('res');

    it('accepts a well-formed id of the prefix', () => {
      expect(isId('res', good)).toBe(true);
    });

    it.each([
      ['another prefix', good.replace('res_', 'usr_')],
      ['no prefix', good.slice(4)],
      ['a prefix without underscore', good.replace('res_', 'res')],
      ['lower case', good.toLowerCase()],
      ['a letter outside Crockford base32 (U)', `res_${'U'.repeat(26)}`],
      ['a letter outside Crockford base32 (I)', `res_0${'I'.repeat(25)}`],
      ['one character short', good.slice(0, -1)],
      ['one character long', `${good}0`],
      ['an integer id', '42'],
      ['an empty string', ''],
      ['trailing whitespace', `${good} `],
    ])('rejects %s', (_case, value) => {
      expect(isId('res', value)).toBe(false);
    });

    it.each([[undefined], [null], [42], [{ id: good }], [[good]]])('rejects the non-string %p', (value) => {
      expect(isId('res', value)).toBe(false);
    });

    it('tells prefixes that start alike apart', () => {
      expect(isId('wh', newId('wh'))).toBe(true);
      expect(isId('wh', `whx_${good.slice(4)}`)).toBe(false);
    });
  });
});
