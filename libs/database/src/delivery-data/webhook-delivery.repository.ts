import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId, TurnBatch } from '@app/common';
import type { DeliveryAttempt, DeliveryStatus, WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';
import type { WebhookEntity, WebhookStatus } from '../entities/webhook.entity';
import { Sql, SqlStatement, SqlStatements } from '../sql';
import { isRefusedData, storableJson } from '../storable-json';

export type NewDelivery = Pick<WebhookDeliveryEntity, 'webhookId' | 'eventId' | 'eventType' | 'body' | 'test'>;

/**
 * What the next attempt of a pending delivery needs, with its webhook's url, secrets, status and owner
 * (`previousSecret` only while a rotation's overlap lasts).
 */
export interface PendingDelivery
  extends Pick<WebhookDeliveryEntity, 'id' | 'webhookId' | 'eventId' | 'eventType' | 'body' | 'test' | 'scheduleStart'> {
  /** Attempts made so far. */
  attemptCount: number;
  webhook: Pick<WebhookEntity, 'url' | 'secret' | 'previousSecret' | 'status' | 'ownerId'>;
}

/** What holding a delivery of a paused webhook found (`WebhookDeliveryRepository.hold`). */
export type HoldOutcome = 'held' | 'resumed' | 'settled';

/** `GET /webhooks/{id}/deliveries` narrowed by status, event kind, or both. */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: WebhookDeliveryEntity['eventType'];
}

/** A delivery queued again by a release or a recovery: what its job needs, oldest first. */
export interface RequeuedDelivery {
  id: string;
  attemptCount: number;
}

/** How a webhook's deliveries went: those of the last day by status, and its newest delivery. */
export interface DeliveryHealth {
  webhookId: string;
  succeeded: number;
  failed: number;
  pending: number;
  lastDelivery: { createdAt: Date; status: DeliveryStatus } | null;
}

interface DeliveryHealthRow {
  webhook_id: string;
  succeeded: string;
  failed: string;
  pending: string;
  last_created_at: Date | null;
  last_status: DeliveryStatus | null;
}

/** One attempt to append to a delivery, with the status it moves to and when it is next due. */
interface RecordedAttempt {
  id: string;
  attempt: [DeliveryAttempt];
  status: DeliveryStatus;
  next: Date | null;
}

/**
 * PostgreSQL refused to store one attempt, even written alone: the delivery is left as it was.
 * The caller records the attempt again without what the receiver sent.
 */
export class UnstorableAttemptError extends Error {
  constructor(
    readonly deliveryId: string,
    cause: unknown,
  ) {
    super(`the attempt of delivery ${deliveryId} could not be stored: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'UnstorableAttemptError';
  }
}

/** Deliveries read or recorded per statement: a burst larger than this is split. */
const MAX_PER_STATEMENT = 500;

/** The records in rounds, in order, each naming a delivery at most once. */
function roundsOfDistinctIds(records: readonly RecordedAttempt[]): RecordedAttempt[][] {
  const rounds: Array<{ ids: Set<string>; records: RecordedAttempt[] }> = [];
  for (const record of records) {
    let round = rounds.find((candidate) => !candidate.ids.has(record.id));
    if (!round) {
      round = { ids: new Set(), records: [] };
      rounds.push(round);
    }
    round.ids.add(record.id);
    round.records.push(record);
  }
  return rounds.map((round) => round.records);
}

/** Every column under the entity's property names. */
const COLUMNS = `id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", body, test, status, attempts,
  schedule_start AS "scheduleStart", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The conditions of a list of one webhook's deliveries, the webhook's id as $1. */
function listWhere(webhookId: string, filter: DeliveryFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [webhookId];
  const conditions = ['webhook_id = $1'];
  if (filter.status !== undefined) {
    values.push(filter.status);
    conditions.push(`status = $${values.length}`);
  }
  if (filter.eventType !== undefined) {
    values.push(filter.eventType);
    conditions.push(`event_type = $${values.length}`);
  }
  return { where: conditions.join(' AND '), values };
}

/** The statements of WebhookDeliveryRepository, by name. */
export const WEBHOOK_DELIVERY_SQL = {
  insertMissing: (deliveries: readonly NewDelivery[]): SqlStatement => ({
    // The second SELECT reads the rows from before the statement: exactly the pairs it did not insert.
    text: `WITH given AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[])
           AS d(id, webhook_id, event_id, event_type, body, test)
       ), inserted AS (
         INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, next_attempt_at)
         SELECT d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.test,
                CASE WHEN w.status = 'paused' THEN NULL ELSE now() END
           FROM given d
           JOIN webhooks w ON w.id = d.webhook_id
         ON CONFLICT (event_id, webhook_id) WHERE NOT test DO NOTHING
         RETURNING id, event_id, webhook_id
       )
       SELECT id, event_id, webhook_id FROM inserted
       UNION ALL
       SELECT existing.id, existing.event_id, existing.webhook_id
         FROM webhook_deliveries existing
        WHERE NOT existing.test AND (existing.event_id, existing.webhook_id) IN (SELECT event_id, webhook_id FROM given)`,
    values: [
      deliveries.map(() => newId('dlv')),
      deliveries.map((delivery) => delivery.webhookId),
      deliveries.map((delivery) => delivery.eventId),
      deliveries.map((delivery) => delivery.eventType),
      deliveries.map((delivery) => delivery.body),
      deliveries.map((delivery) => delivery.test),
    ],
  }),
  insertTest: (delivery: Omit<NewDelivery, 'test'>, id: string, nextAttemptAt: Date): SqlStatement => ({
    text: `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, status, attempts, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, true, 'pending', '[]', $6) RETURNING ${COLUMNS}`,
    values: [id, delivery.webhookId, delivery.eventId, delivery.eventType, delivery.body, nextAttemptAt],
  }),
  page: (webhookId: string, filter: DeliveryFilter, offset: number, limit: number): SqlStatement => {
    const { where, values } = listWhere(webhookId, filter);
    return {
      text: `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${where}
       ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      values: [...values, limit, offset],
    };
  },
  count: (webhookId: string, filter: DeliveryFilter): SqlStatement => {
    const { where, values } = listWhere(webhookId, filter);
    return { text: `SELECT count(*)::int AS total FROM webhook_deliveries WHERE ${where}`, values };
  },
  find: (webhookId: string, id: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2`,
    values: [id, webhookId],
  }),
  listForEvent: (ownerId: string, eventId: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM webhook_deliveries
        WHERE event_id = $1 AND NOT test AND webhook_id IN (SELECT webhook.id FROM webhooks webhook WHERE webhook.owner_id = $2)
        ORDER BY created_at ASC`,
    values: [eventId, ownerId],
  }),
  readPending: (ids: readonly string[]): SqlStatement => ({
    text: `SELECT d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.test, d.schedule_start,
              jsonb_array_length(d.attempts) AS attempt_count, w.url, w.secret, w.status, w.owner_id,
              CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret
         FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = ANY($1::text[]) AND d.status = 'pending'`,
    values: [ids],
  }),
  findOverdue: (graceMs: number, limit: number): SqlStatement => ({
    text: `SELECT d.id, jsonb_array_length(d.attempts) AS attempt_count
         FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'pending' AND d.next_attempt_at < now() - $1 * interval '1 millisecond'
          AND (w.status = 'enabled' OR d.test)
        ORDER BY d.next_attempt_at
        LIMIT $2`,
    values: [graceMs, limit],
  }),
  recordAttempts: (records: readonly RecordedAttempt[]): SqlStatement => ({
    text: `UPDATE webhook_deliveries d
            SET attempts = d.attempts || x.attempt, status = x.status, next_attempt_at = x.next, updated_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, attempt jsonb, status text, next timestamptz)
          WHERE d.id = x.id`,
    values: [JSON.stringify(records)],
  }),
  hold: (id: string): SqlStatement => ({
    text: `WITH paused AS (
         SELECT w.id FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id
          WHERE d.id = $1 AND w.status = 'paused'
          FOR SHARE OF w),
       held AS (
         UPDATE webhook_deliveries SET next_attempt_at = NULL, updated_at = now()
          WHERE id = $1 AND status = 'pending' AND webhook_id IN (SELECT id FROM paused)
         RETURNING id)
       SELECT EXISTS (SELECT 1 FROM held) AS held,
              EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $1 AND status = 'pending') AS pending`,
    values: [id],
  }),
  releaseHeld: (webhookId: string): SqlStatement => ({
    text: `UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now()
        WHERE webhook_id = $1 AND status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= now())
       RETURNING id, event_id, jsonb_array_length(attempts) AS attempt_count, created_at`,
    values: [webhookId],
  }),
  recoverFailed: (webhookId: string, since: Date, until: Date): SqlStatement => ({
    text: `UPDATE webhook_deliveries
          SET status = 'pending', schedule_start = jsonb_array_length(attempts), next_attempt_at = now(), updated_at = now()
        WHERE webhook_id = $1 AND status = 'failed' AND NOT test AND created_at >= $2 AND created_at < $3
       RETURNING id, event_id, jsonb_array_length(attempts) AS attempt_count, created_at`,
    values: [webhookId, since, until],
  }),
  health: (ownerId: string, webhookIds: readonly string[]): SqlStatement => ({
    text: `WITH owned AS (
         SELECT id FROM webhooks WHERE id = ANY($1::text[]) AND owner_id = $2),
       recent AS (
         SELECT webhook_id,
                count(*) FILTER (WHERE status = 'succeeded') AS succeeded,
                count(*) FILTER (WHERE status = 'failed') AS failed,
                count(*) FILTER (WHERE status = 'pending') AS pending
           FROM webhook_deliveries
          WHERE webhook_id IN (SELECT id FROM owned) AND created_at >= now() - interval '24 hours'
          GROUP BY webhook_id)
       SELECT owned.id AS webhook_id,
              coalesce(recent.succeeded, 0) AS succeeded, coalesce(recent.failed, 0) AS failed, coalesce(recent.pending, 0) AS pending,
              newest.created_at AS last_created_at, newest.status AS last_status
         FROM owned
         LEFT JOIN recent ON recent.webhook_id = owned.id
         LEFT JOIN LATERAL (
           SELECT created_at, status FROM webhook_deliveries
            WHERE webhook_id = owned.id
            ORDER BY created_at DESC, id DESC
            LIMIT 1) newest ON true`,
    values: [webhookIds, ownerId],
  }),
  reopen: (id: string): SqlStatement => ({
    text: `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now() WHERE id = $1
       RETURNING ${COLUMNS}`,
    values: [id],
  }),
} satisfies SqlStatements;

/**
 * SQL for webhook deliveries. The delivery worker's two statements per job (its read, its
 * record) are shared by the jobs of one turn of the event loop: a round trip to PostgreSQL costs
 * more than the rest of an attempt's work.
 */
@Injectable()
export class WebhookDeliveryRepository {
  private readonly pendingReads = new TurnBatch<string, PendingDelivery | null>((ids) => this.readPending(ids), MAX_PER_STATEMENT);
  /** One record PostgreSQL refuses fails its own write only: the others of its turn are written one by one. */
  private readonly attemptWrites = new TurnBatch<RecordedAttempt, void>((records) => this.writeAttempts(records), MAX_PER_STATEMENT, isRefusedData);

  constructor(private readonly sql: Sql) {}

  /**
   * Creates the deliveries that do not exist yet and returns the id of each (event, webhook)
   * pair, new or existing, in one statement, so that relaying an event twice queues the same
   * deliveries. A pair another transaction inserts meanwhile is left out: that relay queues it.
   */
  async insertMissing(manager: EntityManager, deliveries: NewDelivery[]): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    if (deliveries.length === 0) return ids;
    const rows = await this.sql.rows<{ id: string; event_id: string; webhook_id: string }>(WEBHOOK_DELIVERY_SQL.insertMissing(deliveries), manager);
    for (const row of rows) ids.set(deliveryKey(row.event_id, row.webhook_id), row.id);
    return ids;
  }

  /** A test delivery: never deduplicated, since each trigger sends one. */
  async insertTest(delivery: Omit<NewDelivery, 'test'>): Promise<WebhookDeliveryEntity> {
    const [created] = await this.sql.rows<WebhookDeliveryEntity>(WEBHOOK_DELIVERY_SQL.insertTest(delivery, newId('dlv'), new Date()));
    return created;
  }

  /**
   * A page of one webhook's deliveries, newest first, and how many there are. Each filter, and the
   * two together, has its index ((webhook_id, status, created_at, id), (webhook_id, event_type,
   * created_at, id), (webhook_id, status, event_type, created_at, id)), walked newest first.
   */
  async list(webhookId: string, filter: DeliveryFilter, offset: number, limit: number): Promise<[WebhookDeliveryEntity[], number]> {
    const deliveries = await this.sql.rows<WebhookDeliveryEntity>(WEBHOOK_DELIVERY_SQL.page(webhookId, filter, offset, limit));
    const [{ total }] = await this.sql.rows<{ total: number }>(WEBHOOK_DELIVERY_SQL.count(webhookId, filter));
    return [deliveries, total];
  }

  async find(webhookId: string, id: string): Promise<WebhookDeliveryEntity | null> {
    const [delivery] = await this.sql.rows<WebhookDeliveryEntity>(WEBHOOK_DELIVERY_SQL.find(webhookId, id));
    return delivery ?? null;
  }

  /** The deliveries of one stored event to the owner's webhooks, oldest first (tests carry samples, never a stored event). */
  listForEvent(ownerId: string, eventId: string): Promise<WebhookDeliveryEntity[]> {
    return this.sql.rows<WebhookDeliveryEntity>(WEBHOOK_DELIVERY_SQL.listForEvent(ownerId, eventId));
  }

  /**
   * A delivery still pending and its webhook, in one read (the delivery worker's hot path);
   * null when the delivery is gone or no longer pending. The reads of one turn go in one statement.
   */
  findPending(id: string): Promise<PendingDelivery | null> {
    return this.pendingReads.add(id);
  }

  private async readPending(ids: readonly string[]): Promise<Array<PendingDelivery | null>> {
    const rows = await this.sql.rows<PendingRow>(WEBHOOK_DELIVERY_SQL.readPending(ids));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      if (!row) return null;
      return {
        id: row.id,
        webhookId: row.webhook_id,
        eventId: row.event_id,
        eventType: row.event_type,
        body: row.body,
        test: row.test,
        scheduleStart: row.schedule_start,
        attemptCount: row.attempt_count,
        webhook: {
          url: row.url,
          secret: row.secret,
          previousSecret: row.previous_secret,
          status: row.status,
          ownerId: row.owner_id,
        },
      };
    });
  }

  /**
   * Pending deliveries whose attempt was due more than `graceMs` ago, most overdue first: their
   * job was lost (a Redis without persistence restarted) or failed before it could record an
   * attempt (the database unreachable). Those of a disabled webhook wait for it to be enabled,
   * except test deliveries, which are sent whatever the webhook's status.
   */
  async findOverdue(graceMs: number, limit: number): Promise<{ id: string; attemptCount: number }[]> {
    const rows = await this.sql.rows<{ id: string; attempt_count: number }>(WEBHOOK_DELIVERY_SQL.findOverdue(graceMs, limit));
    return rows.map((row) => ({ id: row.id, attemptCount: row.attempt_count }));
  }

  /**
   * Appends an attempt and moves the delivery to its new status. The attempts recorded in one turn
   * go in one statement. Every string of the attempt is made storable first (what a receiver
   * answers must never fail the write); one PostgreSQL still refuses rejects with
   * `UnstorableAttemptError`, and fails no other delivery's record.
   */
  async recordAttempt(id: string, attempt: DeliveryAttempt, status: DeliveryStatus, nextAttemptAt: Date | null): Promise<void> {
    try {
      await this.attemptWrites.add({ id, attempt: [storableJson(attempt)], status, next: nextAttemptAt });
    } catch (error) {
      throw isRefusedData(error) ? new UnstorableAttemptError(id, error) : error;
    }
  }

  private async writeAttempts(records: readonly RecordedAttempt[]): Promise<void[]> {
    // An UPDATE … FROM applies one source row per target row: a delivery recorded twice in one
    // turn (its job run again after a crash) has its second record in a statement of its own.
    const rounds = roundsOfDistinctIds(records);
    if (rounds.length === 1) await this.sql.run(WEBHOOK_DELIVERY_SQL.recordAttempts(rounds[0]));
    // Several rounds commit together: a failed call is written again record by record, and must not append twice.
    else {
      await this.sql.transaction(async (manager) => {
        for (const round of rounds) await this.sql.run(WEBHOOK_DELIVERY_SQL.recordAttempts(round), manager);
      });
    }
    return records.map(() => undefined);
  }

  /**
   * Holds a pending delivery of a paused webhook (`next_attempt_at` null) instead of sending it:
   * `held`; `resumed` when its webhook is not paused (any more), so the delivery is to be sent;
   * `settled` when it is no longer pending, another attempt having settled it since it was read.
   * The webhook row is locked in share mode, so a resume waits for the hold to commit and then
   * finds it, and a hold that waited for a resume sees the webhook enabled and holds nothing.
   */
  async hold(id: string): Promise<HoldOutcome> {
    const [{ held, pending }] = await this.sql.rows<{ held: boolean; pending: boolean }>(WEBHOOK_DELIVERY_SQL.hold(id));
    if (held) return 'held';
    return pending ? 'resumed' : 'settled';
  }

  /**
   * Makes due now every pending delivery of a webhook being enabled whose attempt is not scheduled
   * later: those a pause held, and those a disabled webhook left waiting. Returns them oldest
   * first, to be queued in that order.
   */
  async releaseHeld(webhookId: string): Promise<RequeuedDelivery[]> {
    return requeuedOldestFirst(await this.sql.rows<RequeuedRow>(WEBHOOK_DELIVERY_SQL.releaseHeld(webhookId)));
  }

  /**
   * Puts every failed delivery of the webhook created in [since, until) back to pending with a
   * fresh schedule (`schedule_start` at the attempts made so far, which are kept); returns them
   * oldest first. Test deliveries carry samples, not events, and are left as they are.
   */
  async recoverFailed(webhookId: string, since: Date, until: Date): Promise<RequeuedDelivery[]> {
    return requeuedOldestFirst(await this.sql.rows<RequeuedRow>(WEBHOOK_DELIVERY_SQL.recoverFailed(webhookId, since, until)));
  }

  /**
   * The health of the owner's webhooks among `webhookIds`, in one statement for a whole page: the
   * deliveries created in the last 24 hours counted by status (grouped by webhook), and each one's
   * newest delivery. Both walk (webhook_id, created_at, id); a webhook without deliveries has zeros.
   */
  async health(ownerId: string, webhookIds: readonly string[]): Promise<DeliveryHealth[]> {
    if (webhookIds.length === 0) return [];
    const rows = await this.sql.rows<DeliveryHealthRow>(WEBHOOK_DELIVERY_SQL.health(ownerId, webhookIds));
    return rows.map((row) => ({
      webhookId: row.webhook_id,
      succeeded: Number(row.succeeded),
      failed: Number(row.failed),
      pending: Number(row.pending),
      lastDelivery: row.last_created_at && row.last_status ? { createdAt: row.last_created_at, status: row.last_status } : null,
    }));
  }

  /** Puts a finished delivery back to pending for a manual retry. */
  async reopen(id: string): Promise<WebhookDeliveryEntity> {
    const [reopened] = await this.sql.rows<WebhookDeliveryEntity>(WEBHOOK_DELIVERY_SQL.reopen(id));
    return reopened;
  }
}

interface PendingRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookDeliveryEntity['eventType'];
  body: string;
  test: boolean;
  schedule_start: number;
  attempt_count: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  status: WebhookStatus;
  owner_id: string;
}

interface RequeuedRow {
  id: string;
  event_id: string;
  attempt_count: number;
  created_at: Date;
}

/** Oldest first: by creation, then by event id (time-ordered), as one relay pass creates many at once. */
function requeuedOldestFirst(rows: RequeuedRow[]): RequeuedDelivery[] {
  const byKey = (row: RequeuedRow): string => `${row.event_id}\u0000${row.id}`;
  return rows
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (byKey(a) < byKey(b) ? -1 : 1))
    .map((row) => ({ id: row.id, attemptCount: row.attempt_count }));
}

/** The key of an (event, webhook) pair in the map `insertMissing` returns. */
export function deliveryKey(eventId: string, webhookId: string): string {
  return `${eventId}:${webhookId}`;
}
