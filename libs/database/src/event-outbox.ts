import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventKind, newId } from '@app/common';
import { activeTraceContext } from '@app/telemetry';
import type { EventEntity } from './entities/event.entity';
import { Sql, SqlStatement, SqlStatements } from './sql';

export interface NewEvent {
  type: EventKind;
  object: Record<string, unknown>;
  previousData?: Record<string, unknown> | null;
  ownerId: string | null;
  organizationId?: string | null;
}

/** The statement of `EventOutbox.append`. */
function appendEventsStatement(events: readonly NewEvent[]): SqlStatement {
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

/** The statements of EventOutbox, by name. */
export const EVENT_OUTBOX_SQL = {
  append: appendEventsStatement,
  claimUnpublished: (limit: number): SqlStatement => ({
    text: `UPDATE events SET published_at = now()
        WHERE id IN (SELECT id FROM events
                      WHERE published_at IS NULL
                      ORDER BY id
                      LIMIT $1
                        FOR UPDATE SKIP LOCKED)
    RETURNING id, type, data, previous_data AS "previousData", owner_id AS "ownerId", organization_id AS "organizationId",
              created_at AS "createdAt", published_at AS "publishedAt", trace_context AS "traceContext"`,
    values: [limit],
  }),
  release: (ids: readonly string[]): SqlStatement => ({
    text: `UPDATE events SET published_at = NULL WHERE id = ANY($1::text[])`,
    values: [ids],
  }),
} satisfies SqlStatements;

/**
 * The `events` table as an outbox: each context appends the events of a change inside the
 * transaction of that change, so an event exists only if the change does, and the worker's relay
 * claims them from here. Reading events is the events context's (EventRepository).
 */
@Injectable()
export class EventOutbox {
  constructor(private readonly sql: Sql) {}

  /**
   * One statement for any number of events (a bulk of 100 is one round trip). The rows travel
   * as one JSON document: PostgreSQL array parameters would make `pg` escape every payload
   * character by character.
   */
  async append(manager: EntityManager, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.sql.run(EVENT_OUTBOX_SQL.append(events), manager);
  }

  /**
   * Claims the oldest unpublished events in the caller's transaction: they are marked published
   * there, so once it commits no other relay takes them. SKIP LOCKED lets several relays run at
   * once: each takes a different batch, none waits for another.
   */
  claimUnpublished(manager: EntityManager, limit: number): Promise<EventEntity[]> {
    return this.sql.rows<EventEntity>(EVENT_OUTBOX_SQL.claimUnpublished(limit), manager);
  }

  /** Gives claimed events back to the next relay pass: their deliveries could not be queued. */
  async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.run(EVENT_OUTBOX_SQL.release(ids));
  }
}
