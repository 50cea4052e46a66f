import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { connectRedisCluster } from '@app/database';
import { connectRunRedis, PrivateRedisCluster } from '@app/testing';
import { FixedWindowStorage } from './fixed-window.storage';
import { RedisPipelineBatch } from './redis-pipeline-batch';

/** Against the test run's Redis: the window arithmetic lives in a Lua script. */
describe('FixedWindowStorage', () => {
  let redis: Redis;
  let storage: FixedWindowStorage;
  const key = (): string => `fixed-window-spec:${randomBytes(6).toString('hex')}`;

  beforeAll(() => {
    redis = connectRunRedis();
    storage = new FixedWindowStorage(redis, new RedisPipelineBatch(redis));
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

  it('counts a hit while none of its marks is set, and nothing once one is', async () => {
    const [own, token, family] = [key(), key(), key()];
    const hit = { key: own, ttl: 60_000, limit: 1 };
    const unmarked = await storage.countUnlessMarked(hit, [token, family]);
    expect(unmarked).toMatchObject({ marked: false, window: { totalHits: 1, isBlocked: false } });
    await redis.set(family, '1', 'EX', 60);
    expect(await storage.countUnlessMarked(hit, [token, family])).toEqual({ marked: true });
    expect(await storage.countUnlessMarked(hit, [])).toMatchObject({ marked: false, window: { totalHits: 2, isBlocked: true } });
    expect(Number(await redis.get(own))).toBe(2);
    expect(await redis.pttl(own)).toBeGreaterThan(55_000);
  });

  describe('hits made in the same turn of the event loop', () => {
    /** A counter of the script calls sent from now on, in a pipeline or not (EVAL the first time on a connection, EVALSHA after). */
    function scriptCalls(): () => number {
      const sent = jest.spyOn(redis, 'sendCommand');
      return () => sent.mock.calls.filter(([command]) => /^eval(sha)?$/.test(command.name)).length;
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
      expect(calls()).toBe(1);
      expect(windows.map((window) => window.totalHits)).toEqual([1, 1, 2, 3, 4]);
      expect(windows.map((window) => window.isBlocked)).toEqual([false, false, false, false, true]);
      expect(Number(await redis.get(bucket))).toBe(4);
    });

    it('are counted with their marks, whatever each names, in one script call', async () => {
      const [bucket, mark, unset] = [key(), key(), key()];
      await redis.set(mark, '1', 'EX', 60);
      const calls = scriptCalls();
      const hit = { key: bucket, ttl: 60_000, limit: 10 };
      const counted = await Promise.all([
        storage.countUnlessMarked(hit, [unset]),
        storage.increment(bucket, 60_000, 10),
        storage.countUnlessMarked(hit, [unset, mark]),
        storage.countUnlessMarked(hit, []),
      ]);
      expect(calls()).toBe(1);
      const [first, second, third, fourth] = counted;
      expect([first, third, fourth].map((count) => (count.marked ? 'marked' : count.window.totalHits))).toEqual([1, 'marked', 3]);
      expect(second.totalHits).toBe(2);
      expect(Number(await redis.get(bucket))).toBe(3);
    });

    it('go in script calls of at most 256 hits', async () => {
      const bucket = key();
      const calls = scriptCalls();
      const windows = await Promise.all(Array.from({ length: 300 }, () => storage.increment(bucket, 60_000, 1000)));
      expect(calls()).toBe(2);
      expect(windows.map((window) => window.totalHits)).toEqual(Array.from({ length: 300 }, (_, n) => n + 1));
    });
  });
});

/** Against a private three-master Redis Cluster, where a script call's keys must share one slot. */
describe('FixedWindowStorage on a Redis Cluster', () => {
  let cluster: PrivateRedisCluster;
  let redis: Cluster;
  let storage: FixedWindowStorage;

  beforeAll(async () => {
    cluster = await PrivateRedisCluster.start();
    redis = connectRedisCluster(cluster.ports.map((port) => new URL(`redis://127.0.0.1:${port}`)), { keyPrefix: 'window-spec:' });
    storage = new FixedWindowStorage(redis, new RedisPipelineBatch(redis));
  });
  afterAll(async () => {
    await redis?.quit();
    await cluster?.stop();
  });

  it('checks marks in other slots than the counter first, then counts it when none is set', async () => {
    const marks = Array.from({ length: 6 }, (_, index) => `mark:${index}`);
    const hit = { key: 'ratelimit:account:1', ttl: 60_000, limit: 10 };
    const unmarked = await storage.countUnlessMarked(hit, marks);
    await redis.set(marks[4], '1', 'EX', 60);
    const [marked, plain] = await Promise.all([storage.countUnlessMarked(hit, marks), storage.increment(hit.key, hit.ttl, hit.limit)]);
    expect(unmarked).toMatchObject({ marked: false, window: { totalHits: 1 } });
    expect(marked).toEqual({ marked: true });
    expect(plain.totalHits).toBe(2);
    expect(await redis.get(hit.key)).toBe('2');
  });
});
