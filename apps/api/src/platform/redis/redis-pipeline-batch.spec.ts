import { randomBytes } from 'node:crypto';
import { context, SpanKind } from '@opentelemetry/api';
import type { Cluster, Redis } from 'ioredis';
import { connectRedisCluster } from '@app/database';
import { connectRunRedis, PrivateRedisCluster, recordSpansInMemory } from '@app/testing';
import { PipelinedCommand, RedisPipelineBatch } from './redis-pipeline-batch';

// Tracing on, as startTracing would leave it; spans are kept in memory only where a test records them.
jest.mock('@app/telemetry/tracing', () => ({ ...jest.requireActual<typeof import('@app/telemetry/tracing')>('@app/telemetry/tracing'), isTracingOn: () => true }));

/** One INCR per item. */
const increments: PipelinedCommand<string, number> = {
  name: 'INCR',
  commandsFor: (itemCount) => itemCount,
  append: (commands, keys) => keys.map((counter) => commands.incr(counter)),
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
    name: 'EXISTS',
    commandsFor: () => 1,
    append: (commands, keys) => [commands.exists(...keys)],
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
    await Promise.all([turn.add(increments, key()), turn.add(increments, key())]);
    await Promise.all([turn.add(increments, key()), turn.add(existence, key())]);
    expect(pipelines).toHaveBeenCalledTimes(2);
  });

  it('sends a turn whose work is one command by the client itself, without a pipeline', async () => {
    const [counter, present, absent] = [key(), key(), key()];
    await redis.set(present, '1');
    const pipelines = jest.spyOn(redis, 'pipeline');
    const exists = jest.spyOn(redis, 'exists');
    expect(await turn.add(increments, counter)).toBe(1);
    expect(await Promise.all([turn.add(existence, present), turn.add(existence, absent)])).toEqual([true, true]);
    expect(pipelines).not.toHaveBeenCalled();
    expect(exists.mock.calls).toEqual([[present, absent]]);
    expect(await Promise.all([turn.add(increments, counter), turn.add(increments, counter)])).toEqual([2, 3]);
    expect(pipelines).toHaveBeenCalledTimes(1);
  });

  it("fails the items of a single command with its error", async () => {
    const list = key();
    await redis.rpush(list, 'x');
    await expect(turn.add(increments, list)).rejects.toThrow(/WRONGTYPE/);
    expect(await turn.add(existence, list)).toBe(true);
  });

  it("fails the items of a pipelined command that fails, and only those", async () => {
    const list = key();
    await redis.rpush(list, 'x');
    const answers = await Promise.allSettled([turn.add(increments, list), turn.add(existence, list)]);
    expect(answers[0]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/WRONGTYPE/) }) });
    expect(answers[1]).toEqual({ status: 'fulfilled', value: true });
  });

  it("gives each recorded request's item a span in that request's trace, its command named and its key not", async () => {
    const spans = recordSpansInMemory();
    try {
      const [first, second] = [spans.parent('GET /v2/resources/:id'), spans.parent('GET /v2/resources/:id')];
      const counter = key();
      const answers = await Promise.all([
        context.with(first.context, () => turn.add(increments, counter)),
        context.with(second.context, () => turn.add(existence, counter)),
        turn.add(increments, counter),
      ]);
      expect(answers).toEqual([1, true, 2]);
      first.span.end();
      second.span.end();

      const items = spans.ended().filter((span) => span.kind === SpanKind.CLIENT);
      expect(items.map((span) => [span.name, span.spanContext().traceId, span.parentSpanContext?.spanId])).toEqual(
        expect.arrayContaining([
          ['INCR', first.span.spanContext().traceId, first.span.spanContext().spanId],
          ['EXISTS', second.span.spanContext().traceId, second.span.spanContext().spanId],
        ]),
      );
      expect(items).toHaveLength(2);
      expect(items[0].attributes).toMatchObject({ 'db.system.name': 'redis', 'db.query.text': items[0].name, 'server.address': expect.any(String) });
      expect(JSON.stringify(items.map((span) => span.attributes))).not.toContain(counter);
    } finally {
      await spans.stop();
    }
  });

  it('fails an item alone when its round trip fails', async () => {
    const failure = new Error('Connection is closed.');
    const broken = new RedisPipelineBatch({ incr: () => Promise.reject(failure) } as unknown as Redis);
    await expect(broken.add(increments, key())).rejects.toBe(failure);
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
