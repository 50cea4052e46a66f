import { Injectable } from '@nestjs/common';
import type { AuthContext, EventKind, EventPayload } from '@app/common';
import { EventsService } from '../../events/events.service';

/** Events on one console page. */
const EVENTS_PER_PAGE = 20;

export interface EventLogPage {
  events: EventPayload[];
  /** Where the next page goes on from (the API's own signed cursor); null at the oldest event. */
  next: string | null;
}

function nextCursor(meta: Record<string, unknown>): string | undefined {
  const cursor = meta.cursor as { next?: unknown } | undefined;
  return typeof cursor?.next === 'string' ? cursor.next : undefined;
}

/**
 * The event log as the console pages it: exactly the events EventsService lists for the user
 * (GET /v2/events), newest first, and of one type when asked, through the list's own `type`
 * filter, so that a page of a rare type costs what any page does.
 */
@Injectable()
export class ConsoleEventLog {
  constructor(private readonly events: EventsService) {}

  async page(auth: AuthContext, type: EventKind | undefined, cursor: string | undefined): Promise<EventLogPage> {
    const page = await this.events.list(auth, { cursor, limit: EVENTS_PER_PAGE, type });
    return { events: page.data, next: nextCursor(page.meta) ?? null };
  }
}
