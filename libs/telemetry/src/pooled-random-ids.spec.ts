import { randomFillSync } from 'node:crypto';
import { PooledRandomIds } from './pooled-random-ids';

describe('PooledRandomIds', () => {
  it('gives lowercase hex ids of 16 and 8 bytes, none repeated, across many pools', () => {
    const ids = new PooledRandomIds();
    const traceIds = new Set<string>();
    const spanIds = new Set<string>();
    // 24 bytes a pair, 16 KiB a pool: 3,000 pairs draw about four pools.
    for (let i = 0; i < 3000; i++) {
      traceIds.add(ids.generateTraceId());
      spanIds.add(ids.generateSpanId());
    }
    expect(traceIds.size).toBe(3000);
    expect(spanIds.size).toBe(3000);
    expect([...traceIds].every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect([...spanIds].every((id) => /^[0-9a-f]{16}$/.test(id))).toBe(true);
  });

  it("reads an id's words from the bytes its hex was written from", () => {
    const ids = new PooledRandomIds();
    const at = ids.take(16);
    const hex = ids.hexAt(at, 16);
    expect([0, 4, 8, 12].map((offset) => ids.word(at + offset))).toEqual([0, 8, 16, 24].map((digit) => parseInt(hex.slice(digit, digit + 8), 16)));
  });

  it('draws from the generator once per pool, and skips all-zero bytes, which make no valid id', () => {
    let draws = 0;
    const ids = new PooledRandomIds((bytes) => {
      draws += 1;
      randomFillSync(bytes);
      bytes.fill(0, 0, 16);
      bytes.fill(0, 32, 40);
    });
    expect(ids.generateTraceId()).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
    expect(ids.take(8)).toBe(40);
    for (let i = 0; i < 16_384 / 8; i++) ids.take(8);
    expect(draws).toBe(2);
    expect(ids.generateSpanId()).not.toBe('0'.repeat(16));
  });
});
