import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { EventEntity } from '../entities/event.entity';
import { eventVisibleTo, newestEventIdsOfTypes, newestVisibleEventIds } from './event-visibility.sql';

/** Who is asking for events: their id, and whether they are a platform admin. */
export interface EventViewer {
  userId: string;
  isAdmin: boolean;
}

/** Reads of events for the events API, narrowed to what the viewer may see; events are written through EventOutbox. */
@Injectable()
export class EventRepository {
  constructor(@InjectRepository(EventEntity) private readonly events: Repository<EventEntity>) {}

  /**
   * One page of the events the viewer may see, newest first, strictly older than `before`. The
   * candidates are read from the viewer's own indexes first (`newestVisibleEventIds`), then
   * fetched by primary key: the cost of a page does not grow with the table. `types` narrows the
   * page to those kinds of event, each kind read from its own index.
   */
  listVisible(viewer: EventViewer, limit: number, before?: string, types?: readonly string[]): Promise<EventEntity[]> {
    const query = this.events.createQueryBuilder('event').orderBy('event.id', 'DESC').limit(limit);
    if (before) query.where('event.id < :before', { before });
    const typed = types === undefined ? null : ':types';
    if (types !== undefined) query.andWhere('event.type = ANY(:types)', { types });
    if (!viewer.isAdmin) {
      query.andWhere(`event.id = ANY(${newestVisibleEventIds(':viewerId', before ? ':before' : null, ':limit', typed)})`, {
        viewerId: viewer.userId,
        limit,
      });
    } else if (typed !== null) {
      query.andWhere(`event.id = ANY(${newestEventIdsOfTypes(typed, before ? ':before' : null, ':limit')})`, { limit });
    }
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
