import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { connectRunRedis } from '@app/testing';
import { FixedWindowStorage, REVOKED } from './fixed-window.storage';

/** Against the test run's Redis: the window arithmetic lives in a Lua script. */
describe('FixedWindowStorage', () => {
  let redis: Redis;
  let storage: FixedWindowStorage;
  const key = (): string => `fixed-window-spec:${randomBytes(6).toString('hex')}`;

  beforeAll(() => {
    redis = connectRunRedis();
    storage = new FixedWindowStorage(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('opens a window with the first hit and counts the next ones into it', async () => {
    const bucket = key();
    const first = await storage.increment(bucket, 60_000, 3);
    const second = await storage.increment(bucket, 60_000, 3);
    expect([first.totalHits, second.totalHits]).toEqual([1, 2]);
    expect(second.endsAt).toBe(first.endsAt);
    expect(first.endsAt - Date.now()).toBeGreaterThan(55_000);
    expect(first.endsAt - Date.now()).toBeLessThanOrEqual(61_000);
    expect(first.timeToExpire).toBeGreaterThan(55);
    expect(first.timeToExpire).toBeLessThanOrEqual(60);
  });

  it('blocks past the limit until the window ends', async () => {
    const bucket = key();
    for (let i = 0; i < 2; i += 1) expect((await storage.increment(bucket, 60_000, 2)).isBlocked).toBe(false);
    const blocked = await storage.increment(bucket, 60_000, 2);
    expect(blocked).toMatchObject({ totalHits: 3, isBlocked: true, timeToBlockExpire: blocked.timeToExpire });
  });

  it('starts over after a reset', async () => {
    const bucket = key();
    await storage.increment(bucket, 60_000, 2);
    await storage.reset(bucket);
    expect((await storage.increment(bucket, 60_000, 2)).totalHits).toBe(1);
  });

  it('gives a counter that lost its expiry a new window', async () => {
    const bucket = key();
    await redis.set(bucket, '5');
    const window = await storage.increment(bucket, 60_000, 10);
    expect(window.totalHits).toBe(6);
    expect(await redis.pttl(bucket)).toBeGreaterThan(0);
  });

  it('refuses a hit whose revocation mark exists, without counting it', async () => {
    const [bucket, live, revoked] = [key(), key(), key()];
    await redis.set(revoked, '1');
    expect((await storage.hit(bucket, 60_000, 10, [live])) !== REVOKED).toBe(true);
    expect(await storage.hit(bucket, 60_000, 10, [live, revoked])).toBe(REVOKED);
    expect((await storage.increment(bucket, 60_000, 10)).totalHits).toBe(2);
  });

  describe('hits made in the same turn of the event loop', () => {
    const scriptCalls = (): jest.SpyInstance => jest.spyOn(redis as Redis & { chargeFixedWindows: () => unknown }, 'chargeFixedWindows');
    afterEach(() => jest.restoreAllMocks());

    it('are counted in one script call, exactly and in the order they were made', async () => {
      const [bucket, other] = [key(), key()];
      const calls = scriptCalls();
      const windows = await Promise.all([
        storage.increment(bucket, 60_000, 3),
        storage.increment(other, 60_000, 3),
        storage.increment(bucket, 60_000, 3),
        storage.increment(bucket, 60_000, 3),
        storage.increment(bucket, 60_000, 3),
      ]);
      expect(calls).toHaveBeenCalledTimes(1);
      expect(windows.map((window) => window.totalHits)).toEqual([1, 1, 2, 3, 4]);
      expect(windows.map((window) => window.isBlocked)).toEqual([false, false, false, false, true]);
      expect(Number(await redis.get(bucket))).toBe(4);
    });

    it('refuse only the revoked hit among them', async () => {
      const [bucket, live, revoked] = [key(), key(), key()];
      await redis.set(revoked, '1');
      const [first, refused, last] = await Promise.all([
        storage.hit(bucket, 60_000, 10, [live]),
        storage.hit(bucket, 60_000, 10, [live, revoked]),
        storage.hit(bucket, 60_000, 10, []),
      ]);
      expect(refused).toBe(REVOKED);
      expect([first, last].map((window) => (window === REVOKED ? REVOKED : window.totalHits))).toEqual([1, 2]);
    });

    it('go in calls of at most 256 hits', async () => {
      const bucket = key();
      const calls = scriptCalls();
      const windows = await Promise.all(Array.from({ length: 300 }, () => storage.increment(bucket, 60_000, 1000)));
      expect(calls).toHaveBeenCalledTimes(2);
      expect(windows.map((window) => window.totalHits)).toEqual(Array.from({ length: 300 }, (_, n) => n + 1));
    });

    it('all fail with the error of their call', async () => {
      const failure = new Error('Connection is closed.');
      scriptCalls().mockRejectedValue(failure);
      const outcomes = await Promise.allSettled([storage.increment(key(), 60_000, 3), storage.hit(key(), 60_000, 3, [key()])]);
      expect(outcomes).toEqual([
        { status: 'rejected', reason: failure },
        { status: 'rejected', reason: failure },
      ]);
    });
  });
});
