import { Inject, Injectable } from '@nestjs/common';
import type { ChainableCommander } from 'ioredis';
import { TurnBatch } from '@app/common';
import { REDIS, RedisClient, redisCall } from '@app/database';
import { inDatabaseSpan } from '@app/telemetry';

/** One command's reply in a pipeline: its error, or its result. */
export type PipelineReply = [error: Error | null, result: unknown];

/**
 * One kind of work that goes to Redis in the turn's pipeline: how the items of one turn become
 * commands, and how each item's result is read from those commands' replies.
 */
export interface PipelinedCommand<Item, Result> {
  /** The Redis command it appends (`EXISTS`, `EVALSHA` for a script), as an item's span names it. */
  name: string;
  /** Appends the commands for `items` to the pipeline; returns how many commands it appended. */
  append(pipeline: ChainableCommander, items: readonly Item[]): number;
  /** One result per item, in order, from the replies of the appended commands; throws a failed command's error. */
  read(replies: readonly PipelineReply[], items: readonly Item[]): readonly Result[];
}

/** One EXISTS per item, of all the keys it names: whether any of them is set. */
export const ANY_KEY_EXISTS: PipelinedCommand<readonly string[], boolean> = {
  name: 'EXISTS',
  append: (pipeline, items) => {
    for (const keys of items) pipeline.exists(...keys);
    return items.length;
  },
  read: (replies) =>
    replies.map(([error, count]) => {
      if (error) throw error;
      return (count as number) > 0;
    }),
};

interface Queued {
  command: PipelinedCommand<unknown, unknown>;
  item: unknown;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Items per pipeline: a larger burst goes in several pipelines, sent at once. */
const MAX_ITEMS_PER_PIPELINE = 1024;

/**
 * The Redis round trip of one turn of the event loop: whatever the request pipeline sends to
 * Redis in that turn (a credential's revocation check, the rate-limit count) goes in one
 * pipeline, so that an authenticated request costs one round trip and, under load, many requests
 * share it (TurnBatch). Each kind of work (a `PipelinedCommand`) appends its own commands; a
 * failed command fails that kind's items, a failed round trip every item.
 *
 * A Redis Cluster takes a pipeline only when all its keys live on one node, so there each item
 * goes in a pipeline of its own, routed to its key's node: every kind of work keeps an item's
 * keys in one slot. The items of a turn still leave together, written back to back on each node's connection.
 */
@Injectable()
export class RedisPipelineBatch {
  private readonly turn = new TurnBatch<Queued, Settled>((queued) => this.send(queued), MAX_ITEMS_PER_PIPELINE);

  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /**
   * Sends `item` in the next pipeline, with everything else added in this turn. In a recorded
   * span, the item is a span of its own, from its adding to its answer: each request's part of a
   * shared pipeline in its own trace, its command named and its keys not.
   */
  add<Item, Result>(command: PipelinedCommand<Item, Result>, item: Item): Promise<Result> {
    return inDatabaseSpan(() => redisCall(this.redis, command.name), () => this.settle(command, item));
  }

  private async settle<Item, Result>(command: PipelinedCommand<Item, Result>, item: Item): Promise<Result> {
    const settled = await this.turn.add({ command, item });
    if (!settled.ok) throw settled.error;
    return settled.value as Result;
  }

  private async send(queued: readonly Queued[]): Promise<Settled[]> {
    if (!this.redis.isCluster) return this.sendInOnePipeline(queued);
    return Promise.all(queued.map(async (entry) => (await this.sendInOnePipeline([entry]))[0]));
  }

  private async sendInOnePipeline(queued: readonly Queued[]): Promise<Settled[]> {
    const byCommand = new Map<PipelinedCommand<unknown, unknown>, number[]>();
    queued.forEach(({ command }, index) => {
      const positions = byCommand.get(command);
      if (positions) positions.push(index);
      else byCommand.set(command, [index]);
    });
    const pipeline = this.redis.pipeline();
    const groups = [...byCommand].map(([command, positions]) => {
      const items = positions.map((position) => queued[position].item);
      return { command, positions, items, appended: command.append(pipeline, items) };
    });
    const replies = (await pipeline.exec()) ?? [];
    const answers = new Array<Settled>(queued.length);
    let first = 0;
    for (const { command, positions, items, appended } of groups) {
      try {
        const results = command.read(replies.slice(first, first + appended), items);
        positions.forEach((position, index) => (answers[position] = { ok: true, value: results[index] }));
      } catch (error) {
        for (const position of positions) answers[position] = { ok: false, error };
      }
      first += appended;
    }
    return answers;
  }
}
