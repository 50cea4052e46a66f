import { Injectable } from '@nestjs/common';
import { EventEntity, Sql, SqlStatement, SqlStatements } from '@app/database';
import { eventVisibleTo, newestEventIdsOfTypes, newestVisibleEventIds } from '@app/database/published-sql/event-visibility.sql';

/** Who is asking for events: their id, and whether they are a platform admin. */
export interface EventViewer {
  userId: string;
  isAdmin: boolean;
}

/** Every column, under the entity's property names. */
const COLUMNS = `event.id, event.type, event.data, event.previous_data AS "previousData", event.owner_id AS "ownerId",
  event.organization_id AS "organizationId", event.created_at AS "createdAt", event.published_at AS "publishedAt",
  event.trace_context AS "traceContext"`;

/** The statements of EventRepository, by name. */
export const EVENT_SQL = {
  listVisible: (viewer: EventViewer, limit: number, before?: string, types?: readonly string[]): SqlStatement => {
    const values: unknown[] = [];
    const param = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    const conditions: string[] = [];
    const older = before ? param(before) : null;
    if (older) conditions.push(`event.id < ${older}`);
    const typed = types === undefined ? null : param(types);
    if (typed !== null) conditions.push(`event.type = ANY(${typed})`);
    const count = param(limit);
    if (!viewer.isAdmin) {
      conditions.push(`event.id = ANY(${newestVisibleEventIds(param(viewer.userId), older, count, typed)})`);
    } else if (typed !== null) {
      conditions.push(`event.id = ANY(${newestEventIdsOfTypes(typed, older, count)})`);
    }
    const where = conditions.length === 0 ? '' : `\n       WHERE ${conditions.join(' AND ')}`;
    return { text: `SELECT ${COLUMNS} FROM events event${where}\n       ORDER BY event.id DESC LIMIT ${count}`, values };
  },
  findVisible: (viewer: EventViewer, id: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM events event WHERE event.id = $1 AND ${eventVisibleTo('event', '$2', '$3')}`,
    values: [id, viewer.userId, viewer.isAdmin],
  }),
} satisfies SqlStatements;

/** Reads of events for the events API, narrowed to what the viewer may see; events are written through EventOutbox. */
@Injectable()
export class EventRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * One page of the events the viewer may see, newest first, strictly older than `before`. The
   * candidates are read from the viewer's own indexes first (`newestVisibleEventIds`), then
   * fetched by primary key: the cost of a page does not grow with the table. `types` narrows the
   * page to those kinds of event, each kind read from its own index.
   */
  listVisible(viewer: EventViewer, limit: number, before?: string, types?: readonly string[]): Promise<EventEntity[]> {
    return this.sql.rows<EventEntity>(EVENT_SQL.listVisible(viewer, limit, before, types));
  }

  /** One event, when the viewer may see it. */
  async findVisible(viewer: EventViewer, id: string): Promise<EventEntity | null> {
    const [event] = await this.sql.rows<EventEntity>(EVENT_SQL.findVisible(viewer, id));
    return event ?? null;
  }
}
