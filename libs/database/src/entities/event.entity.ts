import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventKind, EventPayload } from '@app/common';
import type { TraceContextHeaders } from '@app/telemetry';

/**
 * One row per change, written in the transaction of the change (transactional outbox).
 * `owner_id` and `organization_id` say who may see the event; `published_at` is set by the
 * worker's relay in the transaction that claims the event and writes its deliveries.
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

  /** The trace of the request that wrote the event, which its relay and deliveries join; null when tracing was off. */
  @Column('jsonb', { name: 'trace_context', nullable: true })
  traceContext: TraceContextHeaders | null;
}

/** The public form of an event: what `GET /events` shows and what a webhook receives. */
export function toEventPayload(event: EventEntity): EventPayload {
  return {
    id: event.id,
    type: event.type as EventKind,
    created_at: event.createdAt.toISOString(),
    data: event.data as EventPayload['data'],
    previous_data: event.previousData,
  };
}
