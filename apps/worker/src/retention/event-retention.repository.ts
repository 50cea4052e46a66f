import { Injectable } from '@nestjs/common';
import { IdPrefix, newOpaqueId } from '@app/common';
import { Sql, SqlStatement, SqlStatements } from '@app/database';

const DAY_MS = 86_400_000;
/** An id's opaque part begins with its creation time: this many characters of milliseconds. */
const ID_TIME_LENGTH = 10;

/**
 * The ids of that prefix made before `time` are exactly those that sort before this: ids begin
 * with their creation time (libs/common ids), so the prune walks each table's primary key in
 * age order and needs no index of its own on the busiest tables.
 */
function idsMadeBefore(prefix: IdPrefix, time: number): string {
  return `${prefix}_${newOpaqueId(time).slice(0, ID_TIME_LENGTH)}`;
}

/** The statements of EventRetentionRepository, by name. `now` is the prune's clock, in milliseconds. */
export const EVENT_RETENTION_SQL = {
  deleteFinishedDeliveries: (days: number, limit: number, now: number): SqlStatement => ({
    text: `WITH deleted AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries
            WHERE id < $1 AND status <> 'pending' AND updated_at < now() - $2 * interval '1 day'
            ORDER BY id
            LIMIT $3
              FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int AS count FROM deleted`,
    values: [idsMadeBefore('dlv', now - days * DAY_MS), days, limit],
  }),
  deleteEvents: (days: number, limit: number, now: number): SqlStatement => ({
    text: `WITH deleted AS (
         DELETE FROM events WHERE id IN (
           SELECT e.id FROM events e
            WHERE e.id < $1 AND e.created_at < now() - $2 * interval '1 day' AND e.published_at IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND NOT d.test)
            ORDER BY e.id
            LIMIT $3
              FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int AS count FROM deleted`,
    values: [idsMadeBefore('evt', now - days * DAY_MS), days, limit],
  }),
  deleteExpiredIdempotencyOutcomes: (limit: number): SqlStatement => ({
    text: `WITH deleted AS (
         DELETE FROM idempotency_outcomes WHERE (account_id, key_hash) IN (
           SELECT account_id, key_hash FROM idempotency_outcomes
            WHERE expires_at < now()
            ORDER BY expires_at
            LIMIT $1
              FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int AS count FROM deleted`,
    values: [limit],
  }),
} satisfies SqlStatements;

/**
 * SQL of the retention prune. Each call deletes one batch by primary key in a statement of its
 * own, so that no transaction holds many row locks for long; rows another transaction has locked
 * (a delivery being retried by hand, say) are skipped and left for the next run. A row goes when
 * both its id and its timestamps say it is older than the retention.
 */
@Injectable()
export class EventRetentionRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Deletes up to `limit` finished deliveries (succeeded or failed) made more than `days` ago
   * whose last attempt or manual retry is that old too, oldest first; their attempts go with
   * them. Returns how many.
   */
  async deleteFinishedDeliveries(days: number, limit: number): Promise<number> {
    return this.count(EVENT_RETENTION_SQL.deleteFinishedDeliveries(days, limit, Date.now()));
  }

  /**
   * Deletes up to `limit` events more than `days` old, oldest first, except those the relay has
   * not published yet and those any delivery still refers to: an event outlives its deliveries,
   * so a delivery never points at an event that is gone. Returns how many.
   */
  async deleteEvents(days: number, limit: number): Promise<number> {
    return this.count(EVENT_RETENTION_SQL.deleteEvents(days, limit, Date.now()));
  }

  /**
   * Deletes up to `limit` idempotency outcomes past their expiry, the keys' 24 hours, soonest
   * expired first by the index on `expires_at`. Returns how many.
   */
  async deleteExpiredIdempotencyOutcomes(limit: number): Promise<number> {
    return this.count(EVENT_RETENTION_SQL.deleteExpiredIdempotencyOutcomes(limit));
  }

  private async count(statement: SqlStatement): Promise<number> {
    const [{ count }] = await this.sql.rows<{ count: number }>(statement);
    return count;
  }
}
