import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { ChainableCommander } from 'ioredis';
import { connectRunRedis } from '@app/testing';
import { FixedWindowStorage } from './fixed-window.storage';
import { RedisTurn } from './redis-turn';

/** Against the test run's Redis: the window arithmetic lives in a Lua script. */
describe('FixedWindowStorage', () => {
  let redis: Redis;
  let storage: FixedWindowStorage;
  const key = (): string => `fixed-window-spec:${randomBytes(6).toString('hex')}`;

  beforeAll(() => {
    redis = connectRunRedis();
    storage = new FixedWindowStorage(redis, new RedisTurn(redis));
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

  it('takes a hit back from a running window, and leaves an ended one ended', async () => {
    const [bucket, ended] = [key(), key()];
    await storage.increment(bucket, 60_000, 10);
    await storage.increment(bucket, 60_000, 10);
    await storage.giveBack(bucket);
    expect((await storage.increment(bucket, 60_000, 10)).totalHits).toBe(2);
    expect(await redis.pttl(bucket)).toBeGreaterThan(0);
    await storage.giveBack(ended);
    expect(await redis.exists(ended)).toBe(0);
  });

  describe('hits made in the same turn of the event loop', () => {
    /** The script calls each pipeline carries. */
    function scriptCalls(): number[] {
      const calls: number[] = [];
      const pipeline = redis.pipeline.bind(redis);
      jest.spyOn(redis, 'pipeline').mockImplementation(() => {
        const created = pipeline() as ChainableCommander & { countFixedWindows: (...args: unknown[]) => ChainableCommander };
        const count = created.countFixedWindows.bind(created);
        calls.push(0);
        created.countFixedWindows = (...args: unknown[]) => {
          calls[calls.length - 1] += 1;
          return count(...args);
        };
        return created;
      });
      return calls;
    }
    afterEach(() => jest.restoreAllMocks());

    it('are counted in one script call of one round trip, exactly and in the order they were made', async () => {
      const [bucket, other] = [key(), key()];
      const calls = scriptCalls();
      const windows = await Promise.all([
        storage.increment(bucket, 60_000, 3),
        storage.increment(other, 60_000, 3),
        storage.increment(bucket, 60_000, 3),
        storage.increment(bucket, 60_000, 3),
        storage.increment(bucket, 60_000, 3),
      ]);
      expect(calls).toEqual([1]);
      expect(windows.map((window) => window.totalHits)).toEqual([1, 1, 2, 3, 4]);
      expect(windows.map((window) => window.isBlocked)).toEqual([false, false, false, false, true]);
      expect(Number(await redis.get(bucket))).toBe(4);
    });

    it('go in script calls of at most 256 hits', async () => {
      const bucket = key();
      const calls = scriptCalls();
      const windows = await Promise.all(Array.from({ length: 300 }, () => storage.increment(bucket, 60_000, 1000)));
      expect(calls).toEqual([2]);
      expect(windows.map((window) => window.totalHits)).toEqual(Array.from({ length: 300 }, (_, n) => n + 1));
    });
  });
});
