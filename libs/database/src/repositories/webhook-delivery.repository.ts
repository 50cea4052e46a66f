import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId } from '@app/common';
import { DeliveryAttempt, DeliveryStatus, WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';

export type NewDelivery = Pick<WebhookDeliveryEntity, 'webhookId' | 'eventId' | 'eventType' | 'body' | 'test'>;

/** SQL for webhook deliveries. */
@Injectable()
export class WebhookDeliveryRepository {
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

  findById(id: string): Promise<WebhookDeliveryEntity | null> {
    return this.deliveries.findOneBy({ id });
  }

  /** Appends an attempt and moves the delivery to its new status in one statement. */
  async recordAttempt(
    id: string,
    attempt: DeliveryAttempt,
    status: DeliveryStatus,
    nextAttemptAt: Date | null,
  ): Promise<void> {
    await this.deliveries.query(
      `UPDATE webhook_deliveries
          SET attempts = attempts || $2::jsonb, status = $3, next_attempt_at = $4, updated_at = now()
        WHERE id = $1`,
      [id, JSON.stringify([attempt]), status, nextAttemptAt],
    );
  }

  /** Puts a finished delivery back to pending for a manual retry. */
  async reopen(id: string): Promise<WebhookDeliveryEntity> {
    await this.deliveries.update({ id }, { status: 'pending', nextAttemptAt: () => 'now()', updatedAt: () => 'now()' });
    return this.deliveries.findOneByOrFail({ id });
  }
}

/** The key of an (event, webhook) pair in the map `insertMissing` returns. */
export function deliveryKey(eventId: string, webhookId: string): string {
  return `${eventId}:${webhookId}`;
}
