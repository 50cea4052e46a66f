import { Injectable } from '@nestjs/common';
import type { AuthContext, EventKind, EventPayload } from '@app/common';
import { EventsService } from '../../events/events.service';

/** Events on one console page. */
const EVENTS_PER_PAGE = 20;
/** How many events one read of the API's list takes while looking for one type. */
const EVENTS_PER_SCAN = 50;
/** How many reads one page makes at most, so that a rare type costs a bounded page. */
const MAX_SCANS = 10;

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
 * (GET /v2/events), newest first, and of one type when asked. The API filters no type, so a
 * filtered page reads the list until it has a page of that type or has read MAX_SCANS times;
 * its `next` goes on from where the reading stopped.
 */
@Injectable()
export class ConsoleEventLog {
  constructor(private readonly events: EventsService) {}

  async page(auth: AuthContext, type: EventKind | undefined, cursor: string | undefined): Promise<EventLogPage> {
    if (!type) {
      const page = await this.events.list(auth, { cursor, limit: EVENTS_PER_PAGE });
      return { events: page.data, next: nextCursor(page.meta) ?? null };
    }
    const found: EventPayload[] = [];
    let next = cursor;
    for (let scans = 0; scans < MAX_SCANS; scans += 1) {
      const page = await this.events.list(auth, { cursor: next, limit: EVENTS_PER_SCAN });
      found.push(...page.data.filter((event) => event.type === type));
      next = nextCursor(page.meta);
      if (!next || found.length >= EVENTS_PER_PAGE) break;
    }
    return { events: found, next: next ?? null };
  }
}
