import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row per change, written in the transaction of the change (transactional outbox).
 * `owner_id` and `organization_id` say who may see the event; `published_at` is set by the
 * worker's relay once deliveries have been queued.
 */
@Entity('events')
export class EventEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  type: string;

  @Column('jsonb')
  data: Record<string, unknown>;

  @Column('jsonb', { name: 'previous_data', nullable: true })
  previousData: Record<string, unknown> | null;

  @Column('text', { name: 'owner_id', nullable: true })
  ownerId: string | null;

  @Column('text', { name: 'organization_id', nullable: true })
  organizationId: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'published_at', nullable: true })
  publishedAt: Date | null;
}
