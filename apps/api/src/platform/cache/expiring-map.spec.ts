import { ExpiringMap } from './expiring-map';

describe('ExpiringMap', () => {
  it('answers an entry until its end, and not from its end on', () => {
    const map = new ExpiringMap<string, number | null>();
    map.set('a', 1, 1_000);
    map.set('b', null, 1_000);
    expect(map.get('a', 999)).toBe(1);
    expect(map.get('b', 999)).toBeNull();
    expect(map.get('a', 1_000)).toBeUndefined();
    // An ended entry is gone, even for a clock read earlier.
    expect(map.get('a', 0)).toBeUndefined();
    expect(map.get('missing', 0)).toBeUndefined();
  });

  it('forgets a deleted key and everything on clear', () => {
    const map = new ExpiringMap<string, number>();
    map.set('a', 1, Infinity);
    map.set('b', 2, Infinity);
    map.delete('a');
    expect(map.get('a')).toBeUndefined();
    expect(map.get('b')).toBe(2);
    map.clear();
    expect(map.get('b')).toBeUndefined();
  });

  it('starts over once full', () => {
    const map = new ExpiringMap<number, number>(2);
    map.set(1, 1, Infinity);
    map.set(2, 2, Infinity);
    map.set(3, 3, Infinity);
    expect([map.get(1), map.get(2), map.get(3)]).toEqual([undefined, undefined, 3]);
  });
});
