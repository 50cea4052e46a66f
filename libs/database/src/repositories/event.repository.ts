import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { EventKind, newId } from '@app/common';
import { EventEntity } from '../entities/event.entity';
import { eventVisibleTo } from './event-visibility';

export interface NewEvent {
  type: EventKind;
  object: Record<string, unknown>;
  previousData?: Record<string, unknown> | null;
  ownerId: string | null;
  organizationId?: string | null;
}

/** Who is asking for events: their id, and whether they are a platform admin. */
export interface EventViewer {
  userId: string;
  isAdmin: boolean;
}

/** Writes event rows inside the caller's transaction, so an event exists only if the change does. */
@Injectable()
export class EventRepository {
  constructor(@InjectRepository(EventEntity) private readonly events: Repository<EventEntity>) {}

  /**
   * One statement for any number of events (a bulk of 100 is one round trip). The rows travel
   * as one JSON document: PostgreSQL array parameters would make `pg` escape every payload
   * character by character.
   */
  async append(manager: EntityManager, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((event) => ({
      id: newId('evt'),
      type: event.type,
      data: { object: event.object },
      previous_data: event.previousData ?? null,
      owner_id: event.ownerId,
      organization_id: event.organizationId ?? null,
    }));
    await manager.query(
      `INSERT INTO events (id, type, data, previous_data, owner_id, organization_id)
       SELECT id, type, data, previous_data, owner_id, organization_id
       FROM jsonb_to_recordset($1::jsonb)
         AS x(id text, type text, data jsonb, previous_data jsonb, owner_id text, organization_id text)`,
      [JSON.stringify(rows)],
    );
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

  /** One page of the events the viewer may see, newest first, strictly older than `before`. */
  listVisible(viewer: EventViewer, limit: number, before?: string): Promise<EventEntity[]> {
    const query = this.events
      .createQueryBuilder('event')
      .where(eventVisibleTo('event', ':viewerId', ':viewerIsAdmin'), {
        viewerId: viewer.userId,
        viewerIsAdmin: viewer.isAdmin,
      })
      .orderBy('event.id', 'DESC')
      .limit(limit);
    if (before) query.andWhere('event.id < :before', { before });
    return query.getMany();
  }

  /** One event, when the viewer may see it. */
  findVisible(viewer: EventViewer, id: string): Promise<EventEntity | null> {
    return this.events
      .createQueryBuilder('event')
      .where('event.id = :id', { id })
      .andWhere(eventVisibleTo('event', ':viewerId', ':viewerIsAdmin'), {
        viewerId: viewer.userId,
        viewerIsAdmin: viewer.isAdmin,
      })
      .getOne();
  }
}
