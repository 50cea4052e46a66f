import { Injectable } from '@nestjs/common';
import { AuthContext, isId, Paginated, ResourceNotFoundError } from '@app/common';
import { EventRepository, EventViewer } from './event.repository';
import { SignedCursorCodec } from '../platform/pagination/signed-cursor.codec';
import { EventListQuery, eventKindsOf } from './dto/event-list.query';
import { EventView, toEventView } from './event.view';

const DEFAULT_LIMIT = 20;

function viewerOf(auth: AuthContext): EventViewer {
  return { userId: auth.userId, isAdmin: auth.role === 'admin' };
}

/** The events the caller's webhooks could receive: the visibility rule of the repository. */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventRepository,
    private readonly cursors: SignedCursorCodec,
  ) {}

  /**
   * Newest first; cursors are bound to the caller and to the kinds asked for, so another user's
   * cursor, or one made with other kinds, is refused.
   */
  async list(auth: AuthContext, query: EventListQuery): Promise<Paginated<EventView>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const types = query.type === undefined ? undefined : (eventKindsOf(query.type) ?? undefined);
    const binding = types === undefined ? `events:${auth.userId}` : `events:${auth.userId}:${[...types].sort().join(',')}`;
    const before = query.cursor ? this.cursors.decode(query.cursor, binding).position[0] : undefined;
    const rows = await this.events.listVisible(viewerOf(auth), limit + 1, before, types);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const next = hasMore ? this.cursors.encode({ position: [page[page.length - 1].id], backward: false }, binding) : null;
    return new Paginated(page.map(toEventView), { cursor: { next, prev: null, has_more: hasMore }, limit });
  }

  async get(auth: AuthContext, id: string): Promise<EventView> {
    const event = isId('evt', id) ? await this.events.findVisible(viewerOf(auth), id) : null;
    if (!event) throw new ResourceNotFoundError('Event', id);
    return toEventView(event);
  }
}
