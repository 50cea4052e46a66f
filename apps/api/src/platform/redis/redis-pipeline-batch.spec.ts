import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { connectRedisCluster } from '@app/database';
import { connectRunRedis, PrivateRedisCluster } from '@app/testing';
import { PipelinedCommand, RedisPipelineBatch } from './redis-pipeline-batch';

/** One INCR per item. */
const increments: PipelinedCommand<string, number> = {
  append: (pipeline, keys) => {
    for (const counter of keys) pipeline.incr(counter);
    return keys.length;
  },
  read: (replies) =>
    replies.map(([error, count]) => {
      if (error) throw error;
      return count as number;
    }),
};

/** Against the test run's Redis. */
describe('RedisPipelineBatch', () => {
  let redis: Redis;
  let turn: RedisPipelineBatch;
  const key = (): string => `redis-pipeline-batch-spec:${randomBytes(6).toString('hex')}`;

  /** One EXISTS for all items together, answered to each. */
  const existence: PipelinedCommand<string, boolean> = {
    append: (pipeline, keys) => {
      pipeline.exists(...keys);
      return 1;
    },
    read: ([[error, count]], keys) => {
      if (error) throw error;
      return keys.map(() => (count as number) > 0);
    },
  };

  beforeAll(() => {
    redis = connectRunRedis();
    turn = new RedisPipelineBatch(redis);
  });
  afterAll(async () => {
    await redis.quit();
  });
  afterEach(() => jest.restoreAllMocks());

  it('sends what every pipelined command adds in one turn in one pipeline, and answers each item from its own command', async () => {
    const [counter, present] = [key(), key()];
    await redis.set(present, '1');
    const pipelines = jest.spyOn(redis, 'pipeline');
    const answers = await Promise.all([turn.add(increments, counter), turn.add(existence, present), turn.add(increments, counter)]);
    expect(answers).toEqual([1, true, 2]);
    expect(pipelines).toHaveBeenCalledTimes(1);
  });

  it('starts a new pipeline for what a later turn adds', async () => {
    const pipelines = jest.spyOn(redis, 'pipeline');
    await turn.add(increments, key());
    await turn.add(increments, key());
    expect(pipelines).toHaveBeenCalledTimes(2);
  });

  it("fails the items of a pipelined command that fails, and only those", async () => {
    const list = key();
    await redis.rpush(list, 'x');
    const answers = await Promise.allSettled([turn.add(increments, list), turn.add(existence, list)]);
    expect(answers[0]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/WRONGTYPE/) }) });
    expect(answers[1]).toEqual({ status: 'fulfilled', value: true });
  });

  it('fails every item when the round trip fails', async () => {
    const failure = new Error('Connection is closed.');
    const failing = { pipeline: () => ({ incr: jest.fn(), exists: jest.fn(), exec: () => Promise.reject(failure) }) };
    const broken = new RedisPipelineBatch(failing as unknown as Redis);
    const answers = await Promise.allSettled([broken.add(increments, key()), broken.add(existence, key())]);
    expect(answers).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
  });
});

/** Against a private three-master Redis Cluster: a pipeline there must stay on one node. */
describe('RedisPipelineBatch on a Redis Cluster', () => {
  let cluster: PrivateRedisCluster;
  let redis: Cluster;
  let turn: RedisPipelineBatch;


  beforeAll(async () => {
    cluster = await PrivateRedisCluster.start();
    redis = connectRedisCluster(cluster.ports.map((port) => new URL(`redis://127.0.0.1:${port}`)), { keyPrefix: 'turn-spec:' });
    turn = new RedisPipelineBatch(redis);
  });
  afterAll(async () => {
    await redis?.quit();
    await cluster?.stop();
  });

  it("answers every item of one turn although their keys live on different nodes", async () => {
    const counters = Array.from({ length: 30 }, (_, index) => `counter:${index}`);
    const answers = await Promise.all([...counters, ...counters].map((counter) => turn.add(increments, counter)));
    expect(answers).toEqual([...counters.map(() => 1), ...counters.map(() => 2)]);
    const nodesHolding = (await Promise.all(cluster.ports.map((port) => cluster.cli(port, 'dbsize')))).filter((size) => Number(size) > 0);
    expect(nodesHolding.length).toBe(3);
  });
});
