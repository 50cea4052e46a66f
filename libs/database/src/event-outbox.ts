import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventKind, newId } from '@app/common';
import { activeTraceContext } from '@app/telemetry';
import { EventEntity } from './entities/event.entity';
import type { SqlStatement } from './pooled-reads';

export interface NewEvent {
  type: EventKind;
  object: Record<string, unknown>;
  previousData?: Record<string, unknown> | null;
  ownerId: string | null;
  organizationId?: string | null;
}

/** The statement of `EventOutbox.append`; exported, like the resource statements, for the benchmark's bare floor. */
export function appendEventsStatement(events: readonly NewEvent[]): SqlStatement {
  // The writing request's trace; undefined, and so left out of the JSON, when tracing is off.
  const traceContext = activeTraceContext();
  const rows = events.map((event) => ({
    id: newId('evt'),
    type: event.type,
    data: { object: event.object },
    previous_data: event.previousData ?? null,
    owner_id: event.ownerId,
    organization_id: event.organizationId ?? null,
    trace_context: traceContext,
  }));
  return {
    text: `INSERT INTO events (id, type, data, previous_data, owner_id, organization_id, trace_context)
       SELECT id, type, data, previous_data, owner_id, organization_id, trace_context
       FROM jsonb_to_recordset($1::jsonb)
         AS x(id text, type text, data jsonb, previous_data jsonb, owner_id text, organization_id text, trace_context jsonb)`,
    values: [JSON.stringify(rows)],
  };
}

/**
 * The `events` table as an outbox: each context appends the events of a change inside the
 * transaction of that change, so an event exists only if the change does, and the worker's relay
 * claims them from here. Reading events is the events context's (EventRepository).
 */
@Injectable()
export class EventOutbox {
  /**
   * One statement for any number of events (a bulk of 100 is one round trip). The rows travel
   * as one JSON document: PostgreSQL array parameters would make `pg` escape every payload
   * character by character.
   */
  async append(manager: EntityManager, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const { text, values } = appendEventsStatement(events);
    await manager.query(text, values);
  }

  /**
   * The oldest unpublished events, locked for the caller's transaction. SKIP LOCKED lets
   * several relays run at once: each takes a different batch, none waits for another.
   */
  claimUnpublished(manager: EntityManager, limit: number): Promise<EventEntity[]> {
    return manager
      .getRepository(EventEntity)
      .createQueryBuilder('event')
      .where('event.published_at IS NULL')
      .orderBy('event.id', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  /** Marks claimed events as relayed, in the transaction that claimed them. */
  async markPublished(manager: EntityManager, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await manager.query(`UPDATE events SET published_at = now() WHERE id = ANY($1::text[])`, [ids]);
  }
}
