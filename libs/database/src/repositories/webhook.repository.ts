import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Not, Repository } from 'typeorm';
import { EventEntity } from '../entities/event.entity';
import { WebhookEntity } from '../entities/webhook.entity';
import { eventVisibleTo } from './event-visibility.sql';
import { USER_ACCOUNTS } from './user-accounts.sql';

export type NewWebhook = Pick<WebhookEntity, 'id' | 'ownerId' | 'url' | 'events' | 'secret' | 'description'>;

export type WebhookChanges = Partial<Pick<WebhookEntity, 'url' | 'events' | 'secret' | 'description' | 'status'>>;

/** A webhook that should receive an event, with what a delivery needs to sign it. */
export interface WebhookTarget {
  eventId: string;
  webhookId: string;
}

/** SQL for webhooks. Reads by id are always narrowed to the owner: another user's webhook does not exist for them. */
@Injectable()
export class WebhookRepository {
  constructor(@InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>) {}

  async insert(webhook: NewWebhook): Promise<WebhookEntity> {
    await this.webhooks.insert({ ...webhook, status: 'enabled', disabledReason: null });
    return this.webhooks.findOneByOrFail({ id: webhook.id });
  }

  /** A page of the owner's webhooks, newest first, and how many there are. */
  listOwned(ownerId: string, offset: number, limit: number): Promise<[WebhookEntity[], number]> {
    return this.webhooks.findAndCount({
      where: { ownerId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  findOwned(ownerId: string, id: string): Promise<WebhookEntity | null> {
    return this.webhooks.findOneBy({ id, ownerId });
  }

  /**
   * Applies changes to one of the owner's webhooks; null when there is no such webhook.
   * Enabling or pausing clears `disabled_reason`.
   */
  async update(ownerId: string, id: string, changes: WebhookChanges): Promise<WebhookEntity | null> {
    const reason = changes.status !== undefined && changes.status !== 'disabled' ? { disabledReason: null } : {};
    const result = await this.webhooks.update({ id, ownerId }, { ...changes, ...reason, updatedAt: () => 'now()' });
    if (result.affected !== 1) return null;
    return this.webhooks.findOneBy({ id });
  }

  /** Deletes one of the owner's webhooks (its deliveries go with it); false when there is no such webhook. */
  async delete(ownerId: string, id: string): Promise<boolean> {
    const result = await this.webhooks.delete({ id, ownerId });
    return result.affected === 1;
  }

  /** Disables a webhook after a delivery gave up on it; a paused webhook is never disabled. */
  async disable(id: string, reason: string): Promise<void> {
    await this.webhooks.update({ id, status: Not('paused') }, { status: 'disabled', disabledReason: reason, updatedAt: () => 'now()' });
  }

  /**
   * Makes `secret` the owner's webhook's signing secret and keeps the one it replaces, as
   * `previous_secret`, until `previousExpiresAt`; the secret of an earlier rotation is
   * forgotten. Null when there is no such webhook.
   */
  async rotateSecret(ownerId: string, id: string, secret: string, previousExpiresAt: Date): Promise<WebhookEntity | null> {
    const result = await this.webhooks
      .createQueryBuilder()
      .update()
      .set({
        previousSecret: () => 'secret',
        secret,
        previousSecretExpiresAt: previousExpiresAt,
        updatedAt: () => 'now()',
      })
      .where('id = :id AND owner_id = :ownerId', { id, ownerId })
      .execute();
    if (result.affected !== 1) return null;
    return this.webhooks.findOneBy({ id });
  }

  /**
   * Every (event, enabled or paused webhook) pair where the webhook subscribes to the event's
   * kind and its owner may see the event, for a batch of claimed events (a paused webhook's
   * deliveries are made held).
   */
  async matchEvents(manager: EntityManager, events: Pick<EventEntity, 'id'>[]): Promise<WebhookTarget[]> {
    if (events.length === 0) return [];
    const rows: { event_id: string; webhook_id: string }[] = await manager.query(
      `SELECT event.id AS event_id, webhook.id AS webhook_id
         FROM events event
         JOIN webhooks webhook ON webhook.status <> 'disabled' AND event.type = ANY(webhook.events)
         JOIN ${USER_ACCOUNTS} owner ON owner.id = webhook.owner_id
        WHERE event.id = ANY($1::text[])
          AND ${eventVisibleTo('event', 'webhook.owner_id', 'owner.is_admin')}
        ORDER BY event.id, webhook.id`,
      [events.map((event) => event.id)],
    );
    return rows.map((row) => ({ eventId: row.event_id, webhookId: row.webhook_id }));
  }
}
