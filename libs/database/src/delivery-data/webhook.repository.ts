import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { EventEntity } from '../entities/event.entity';
import type { WebhookEntity } from '../entities/webhook.entity';
import { eventVisibleTo } from '../published-sql/event-visibility.sql';
import { USER_ACCOUNTS } from '../published-sql/user-accounts.sql';
import { Sql, SqlStatement, SqlStatements } from '../sql';

export type NewWebhook = Pick<WebhookEntity, 'id' | 'ownerId' | 'url' | 'events' | 'secret' | 'description'>;

export type WebhookChanges = Partial<Pick<WebhookEntity, 'url' | 'events' | 'secret' | 'description' | 'status'>>;

/** A webhook that should receive an event, with what a delivery needs to sign it. */
export interface WebhookTarget {
  eventId: string;
  webhookId: string;
}

/** Every column under the entity's property names, but the secrets. */
const COLUMNS = `id, owner_id AS "ownerId", url, events, previous_secret_expires_at AS "previousSecretExpiresAt", status,
  description, disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The column of each field a change may set, in the order the statement sets them. */
const CHANGE_COLUMNS: Record<keyof WebhookChanges, string> = {
  url: 'url',
  events: 'events',
  secret: 'secret',
  description: 'description',
  status: 'status',
};

/** The statements of WebhookRepository, by name. */
export const WEBHOOK_SQL = {
  insert: (webhook: NewWebhook): SqlStatement => ({
    text: `INSERT INTO webhooks (id, owner_id, url, events, secret, description, status, disabled_reason)
       VALUES ($1, $2, $3, $4, $5, $6, 'enabled', NULL) RETURNING ${COLUMNS}`,
    values: [webhook.id, webhook.ownerId, webhook.url, webhook.events, webhook.secret, webhook.description],
  }),
  pageOwned: (ownerId: string, offset: number, limit: number): SqlStatement => ({
    text: `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM webhooks
       WHERE owner_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
    values: [ownerId, offset, limit],
  }),
  countOwned: (ownerId: string): SqlStatement => ({
    text: `SELECT count(*)::int AS total FROM webhooks WHERE owner_id = $1`,
    values: [ownerId],
  }),
  findOwned: (ownerId: string, id: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND owner_id = $2`,
    values: [id, ownerId],
  }),
  update: (ownerId: string, id: string, changes: WebhookChanges): SqlStatement => {
    const values: unknown[] = [id, ownerId];
    const set = (Object.keys(CHANGE_COLUMNS) as Array<keyof WebhookChanges>)
      .filter((field) => changes[field] !== undefined)
      .map((field) => {
        values.push(changes[field]);
        return `${CHANGE_COLUMNS[field]} = $${values.length}`;
      });
    // Enabling or pausing clears the reason of an earlier disable.
    if (changes.status !== undefined && changes.status !== 'disabled') set.push('disabled_reason = NULL');
    return {
      text: `UPDATE webhooks SET ${[...set, 'updated_at = now()'].join(', ')} WHERE id = $1 AND owner_id = $2 RETURNING ${COLUMNS}`,
      values,
    };
  },
  delete: (ownerId: string, id: string): SqlStatement => ({
    text: `DELETE FROM webhooks WHERE id = $1 AND owner_id = $2`,
    values: [id, ownerId],
  }),
  disable: (id: string, reason: string): SqlStatement => ({
    text: `UPDATE webhooks SET status = 'disabled', disabled_reason = $2, updated_at = now() WHERE id = $1 AND status <> 'paused'`,
    values: [id, reason],
  }),
  rotateSecret: (ownerId: string, id: string, secret: string, previousExpiresAt: Date): SqlStatement => ({
    text: `UPDATE webhooks
          SET previous_secret = secret, secret = $3, previous_secret_expires_at = $4, updated_at = now()
        WHERE id = $1 AND owner_id = $2
       RETURNING ${COLUMNS}`,
    values: [id, ownerId, secret, previousExpiresAt],
  }),
  matchEvents: (eventIds: readonly string[]): SqlStatement => ({
    text: `SELECT event.id AS event_id, webhook.id AS webhook_id
         FROM events event
         JOIN webhooks webhook ON webhook.status <> 'disabled' AND event.type = ANY(webhook.events)
         JOIN ${USER_ACCOUNTS} owner ON owner.id = webhook.owner_id
        WHERE event.id = ANY($1::text[])
          AND ${eventVisibleTo('event', 'webhook.owner_id', 'owner.is_admin')}
        ORDER BY event.id, webhook.id`,
    values: [eventIds],
  }),
} satisfies SqlStatements;

/** SQL for webhooks. Reads by id are always narrowed to the owner: another user's webhook does not exist for them. */
@Injectable()
export class WebhookRepository {
  constructor(private readonly sql: Sql) {}

  async insert(webhook: NewWebhook): Promise<WebhookEntity> {
    const [created] = await this.sql.rows<WebhookEntity>(WEBHOOK_SQL.insert(webhook));
    return created;
  }

  /** A page of the owner's webhooks, newest first, and how many there are. */
  async listOwned(ownerId: string, offset: number, limit: number): Promise<[WebhookEntity[], number]> {
    const rows = await this.sql.rows<WebhookEntity & { total: number }>(WEBHOOK_SQL.pageOwned(ownerId, offset, limit));
    if (rows.length === 0 && offset > 0) {
      const [{ total }] = await this.sql.rows<{ total: number }>(WEBHOOK_SQL.countOwned(ownerId));
      return [[], total];
    }
    return [rows.map(({ total: _total, ...webhook }) => webhook), rows[0]?.total ?? 0];
  }

  async findOwned(ownerId: string, id: string): Promise<WebhookEntity | null> {
    const [webhook] = await this.sql.rows<WebhookEntity>(WEBHOOK_SQL.findOwned(ownerId, id));
    return webhook ?? null;
  }

  /**
   * Applies changes to one of the owner's webhooks; null when there is no such webhook.
   * Enabling or pausing clears `disabled_reason`.
   */
  async update(ownerId: string, id: string, changes: WebhookChanges): Promise<WebhookEntity | null> {
    const [updated] = await this.sql.rows<WebhookEntity>(WEBHOOK_SQL.update(ownerId, id, changes));
    return updated ?? null;
  }

  /** Deletes one of the owner's webhooks (its deliveries go with it); false when there is no such webhook. */
  async delete(ownerId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.sql.run(WEBHOOK_SQL.delete(ownerId, id));
    return rowCount === 1;
  }

  /** Disables a webhook after a delivery gave up on it; a paused webhook is never disabled. */
  async disable(id: string, reason: string): Promise<void> {
    await this.sql.run(WEBHOOK_SQL.disable(id, reason));
  }

  /**
   * Makes `secret` the owner's webhook's signing secret and keeps the one it replaces, as
   * `previous_secret`, until `previousExpiresAt`; the secret of an earlier rotation is
   * forgotten. Null when there is no such webhook.
   */
  async rotateSecret(ownerId: string, id: string, secret: string, previousExpiresAt: Date): Promise<WebhookEntity | null> {
    const [rotated] = await this.sql.rows<WebhookEntity>(WEBHOOK_SQL.rotateSecret(ownerId, id, secret, previousExpiresAt));
    return rotated ?? null;
  }

  /**
   * Every (event, enabled or paused webhook) pair where the webhook subscribes to the event's
   * kind and its owner may see the event, for a batch of claimed events (a paused webhook's
   * deliveries are made held).
   */
  async matchEvents(manager: EntityManager, events: Pick<EventEntity, 'id'>[]): Promise<WebhookTarget[]> {
    if (events.length === 0) return [];
    const rows = await this.sql.rows<{ event_id: string; webhook_id: string }>(
      WEBHOOK_SQL.matchEvents(events.map((event) => event.id)),
      manager,
    );
    return rows.map((row) => ({ eventId: row.event_id, webhookId: row.webhook_id }));
  }
}
