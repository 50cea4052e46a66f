import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventKind } from '@app/common';

/** `paused` holds deliveries (made, not sent) until the webhook is enabled again; it is never disabled meanwhile. */
export type WebhookStatus = 'enabled' | 'disabled' | 'paused';

/** A webhook: where its owner's visible events are posted. The secret is never selected by default. */
@Entity('webhooks')
export class WebhookEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'owner_id' })
  ownerId: string;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: EventKind[];

  @Column('text', { select: false })
  secret: string;

  /** The secret before the last rotation: deliveries are signed with it too until it expires. */
  @Column('text', { name: 'previous_secret', nullable: true, select: false })
  previousSecret: string | null;

  @Column('timestamptz', { name: 'previous_secret_expires_at', nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column('text')
  status: WebhookStatus;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { name: 'disabled_reason', nullable: true })
  disabledReason: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
