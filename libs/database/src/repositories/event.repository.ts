import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '@app/common';

export interface NewEvent {
  type: string;
  object: Record<string, unknown>;
  previousData?: Record<string, unknown> | null;
  ownerId: string | null;
  organizationId?: string | null;
}

/** Writes event rows inside the caller's transaction, so an event exists only if the change does. */
@Injectable()
export class EventRepository {
  /** One statement for any number of events (a bulk of 100 is one round trip). */
  async append(manager: EntityManager, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    await manager.query(
      `INSERT INTO events (id, type, data, previous_data, owner_id, organization_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[], $5::text[], $6::text[])`,
      [
        events.map(() => newId('evt')),
        events.map((event) => event.type),
        events.map((event) => JSON.stringify({ object: event.object })),
        events.map((event) => (event.previousData ? JSON.stringify(event.previousData) : null)),
        events.map((event) => event.ownerId),
        events.map((event) => event.organizationId ?? null),
      ],
    );
  }
}
