import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId, TurnBatch } from '@app/common';
import { DeliveryAttempt, DeliveryStatus, WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';
import type { WebhookEntity, WebhookStatus } from '../entities/webhook.entity';
import { isRefusedData, storableJson } from '../storable-json';

export type NewDelivery = Pick<WebhookDeliveryEntity, 'webhookId' | 'eventId' | 'eventType' | 'body' | 'test'>;

/** What the next attempt of a pending delivery needs, with its webhook's url, secret, status and owner. */
export interface PendingDelivery extends Pick<WebhookDeliveryEntity, 'id' | 'webhookId' | 'eventId' | 'eventType' | 'body' | 'test'> {
  /** Attempts made so far. */
  attemptCount: number;
  webhook: Pick<WebhookEntity, 'url' | 'secret' | 'status' | 'ownerId'>;
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

  constructor(
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
  ) {}

  /**
   * Creates the deliveries that do not exist yet and returns the id of each (event, webhook)
   * pair, new or existing, so that relaying an event twice queues the same deliveries.
   */
  async insertMissing(manager: EntityManager, deliveries: NewDelivery[]): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    if (deliveries.length === 0) return ids;
    await manager.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, next_attempt_at)
       SELECT id, webhook_id, event_id, event_type, body, test, now()
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[])
           AS d(id, webhook_id, event_id, event_type, body, test)
       ON CONFLICT (event_id, webhook_id) WHERE NOT test DO NOTHING`,
      [
        deliveries.map(() => newId('dlv')),
        deliveries.map((delivery) => delivery.webhookId),
        deliveries.map((delivery) => delivery.eventId),
        deliveries.map((delivery) => delivery.eventType),
        deliveries.map((delivery) => delivery.body),
        deliveries.map((delivery) => delivery.test),
      ],
    );
    const rows: { id: string; event_id: string; webhook_id: string }[] = await manager.query(
      `SELECT id, event_id, webhook_id FROM webhook_deliveries
        WHERE NOT test AND (event_id, webhook_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [deliveries.map((delivery) => delivery.eventId), deliveries.map((delivery) => delivery.webhookId)],
    );
    for (const row of rows) ids.set(deliveryKey(row.event_id, row.webhook_id), row.id);
    return ids;
  }

  /** A test delivery: never deduplicated, since each trigger sends one. */
  async insertTest(delivery: Omit<NewDelivery, 'test'>): Promise<WebhookDeliveryEntity> {
    const id = newId('dlv');
    await this.deliveries.insert({
      ...delivery,
      id,
      test: true,
      status: 'pending',
      attempts: [],
      nextAttemptAt: new Date(),
    });
    return this.deliveries.findOneByOrFail({ id });
  }

  /** A page of one webhook's deliveries, newest first, and how many there are. */
  list(webhookId: string, offset: number, limit: number): Promise<[WebhookDeliveryEntity[], number]> {
    return this.deliveries.findAndCount({
      where: { webhookId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  find(webhookId: string, id: string): Promise<WebhookDeliveryEntity | null> {
    return this.deliveries.findOneBy({ id, webhookId });
  }

  /** The deliveries of one stored event to the owner's webhooks, oldest first (tests carry samples, never a stored event). */
  listForEvent(ownerId: string, eventId: string): Promise<WebhookDeliveryEntity[]> {
    return this.deliveries
      .createQueryBuilder('delivery')
      .where('delivery.eventId = :eventId AND NOT delivery.test', { eventId })
      .andWhere('delivery.webhookId IN (SELECT webhook.id FROM webhooks webhook WHERE webhook.owner_id = :ownerId)', { ownerId })
      .orderBy('delivery.createdAt', 'ASC')
      .getMany();
  }

  /**
   * A delivery still pending and its webhook, in one read (the delivery worker's hot path);
   * null when the delivery is gone or no longer pending. The reads of one turn go in one statement.
   */
  findPending(id: string): Promise<PendingDelivery | null> {
    return this.pendingReads.add(id);
  }

  private async readPending(ids: readonly string[]): Promise<Array<PendingDelivery | null>> {
    const rows: PendingRow[] = await this.deliveries.query(
      `SELECT d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.test,
              jsonb_array_length(d.attempts) AS attempt_count, w.url, w.secret, w.status, w.owner_id
         FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = ANY($1::text[]) AND d.status = 'pending'`,
      [ids],
    );
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
        attemptCount: row.attempt_count,
        webhook: { url: row.url, secret: row.secret, status: row.status, ownerId: row.owner_id },
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
    const rows: { id: string; attempt_count: number }[] = await this.deliveries.query(
      `SELECT d.id, jsonb_array_length(d.attempts) AS attempt_count
         FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'pending' AND d.next_attempt_at < now() - $1 * interval '1 millisecond'
          AND (w.status = 'enabled' OR d.test)
        ORDER BY d.next_attempt_at
        LIMIT $2`,
      [graceMs, limit],
    );
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
    const write = (manager: EntityManager, round: RecordedAttempt[]): Promise<unknown> =>
      manager.query(
        `UPDATE webhook_deliveries d
            SET attempts = d.attempts || x.attempt, status = x.status, next_attempt_at = x.next, updated_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, attempt jsonb, status text, next timestamptz)
          WHERE d.id = x.id`,
        [JSON.stringify(round)],
      );
    if (rounds.length === 1) await write(this.deliveries.manager, rounds[0]);
    // Several rounds commit together: a failed call is written again record by record, and must not append twice.
    else {
      await this.deliveries.manager.transaction(async (manager) => {
        for (const round of rounds) await write(manager, round);
      });
    }
    return records.map(() => undefined);
  }

  /** Puts a finished delivery back to pending for a manual retry. */
  async reopen(id: string): Promise<WebhookDeliveryEntity> {
    await this.deliveries.update({ id }, { status: 'pending', nextAttemptAt: () => 'now()', updatedAt: () => 'now()' });
    return this.deliveries.findOneByOrFail({ id });
  }
}

interface PendingRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookDeliveryEntity['eventType'];
  body: string;
  test: boolean;
  attempt_count: number;
  url: string;
  secret: string;
  status: WebhookStatus;
  owner_id: string;
}

/** The key of an (event, webhook) pair in the map `insertMissing` returns. */
export function deliveryKey(eventId: string, webhookId: string): string {
  return `${eventId}:${webhookId}`;
}
