import { Inject, Injectable } from '@nestjs/common';
import type { ClientContext, RedisCommander } from 'ioredis';
import { TurnBatch } from '@app/common';
import { REDIS, RedisClient, redisCall } from '@app/database';
import { inDatabaseSpan } from '@app/telemetry';

/** One command's reply in a pipeline: its error, or its result. */
export type PipelineReply = [error: Error | null, result: unknown];

/** Where a kind of work sends its commands: the turn's pipeline, or the client itself when the turn's work is one command. */
export type RedisCommands = RedisCommander<ClientContext>;

/**
 * One kind of work that goes to Redis in the turn's round trip: how the items of one turn become
 * commands, and how each item's result is read from those commands' replies.
 */
export interface PipelinedCommand<Item, Result> {
  /** The Redis command it appends (`EXISTS`, `EVALSHA` for a script), as an item's span names it. */
  name: string;
  /** How many commands `append` sends for so many items: one for a single item. */
  commandsFor(itemCount: number): number;
  /**
   * Sends the commands for `items` to `commands`; returns what each command returned (on the
   * client, its reply's promise), one entry per command.
   */
  append(commands: RedisCommands, items: readonly Item[]): unknown[];
  /** One result per item, in order, from the replies of the appended commands; throws a failed command's error. */
  read(replies: readonly PipelineReply[], items: readonly Item[]): readonly Result[];
}

/** One EXISTS per item, of all the keys it names: whether any of them is set. */
export const ANY_KEY_EXISTS: PipelinedCommand<readonly string[], boolean> = {
  name: 'EXISTS',
  commandsFor: (itemCount) => itemCount,
  append: (commands, items) => items.map((keys) => commands.exists(...keys)),
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
 * A turn whose work is a single command (a read's rate-limit counts, which check the credentials'
 * revocation marks in the same script call) is sent by the client itself: a pipeline is an object
 * of its own per turn, with a copy of the client's commands, that one command does not need.
 * A Redis Cluster takes a pipeline only when all its keys live on one node, so there each item is
 * sent alone, routed to its key's node: every kind of work keeps an item's keys in one slot.
 */
@Injectable()
export class RedisPipelineBatch {
  private readonly turn = new TurnBatch<Queued, Settled>((queued) => this.send(queued), MAX_ITEMS_PER_PIPELINE);

  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /**
   * Sends `item` in the next round trip, with everything else added in this turn. In a recorded
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

  private send(queued: readonly Queued[]): Promise<Settled[]> {
    if (this.redis.isCluster) return Promise.all(queued.map(async ({ command, item }) => (await this.sendInOneCommand(command, [item]))[0]));
    const { command } = queued[0];
    if (queued.every((entry) => entry.command === command) && command.commandsFor(queued.length) === 1) {
      return this.sendInOneCommand(command, queued.map((entry) => entry.item));
    }
    return this.sendInOnePipeline(queued);
  }

  /** Items of one kind of work that make a single command, sent by the client itself. */
  private async sendInOneCommand(command: PipelinedCommand<unknown, unknown>, items: readonly unknown[]): Promise<Settled[]> {
    try {
      const [reply] = command.append(this.redis, items);
      return command.read([[null, await reply]], items).map((value) => ({ ok: true, value }));
    } catch (error) {
      return items.map(() => ({ ok: false, error }));
    }
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
      return { command, positions, items, appended: command.append(pipeline, items).length };
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
