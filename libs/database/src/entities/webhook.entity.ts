import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventKind } from '@app/common';

export type WebhookStatus = 'enabled' | 'disabled';

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
