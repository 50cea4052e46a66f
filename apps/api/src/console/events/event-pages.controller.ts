import { Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { EVENT_KINDS, isEventKind, ValidationError } from '@app/common';
import { EventListQuery } from '../../events/dto/event-list.query';
import { EventsService } from '../../events/events.service';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { SignedIn, SignedInUser } from '../access/signed-in-user';
import { validAs } from '../console-form';
import { ConsolePages } from '../console-pages.decorator';
import { sendPage } from '../rendering/page-response';
import { ConsoleEventLog } from './console-event-log.service';
import { eventPage, eventsPage } from './event.pages';

/** The event log, by type, and each event with its payload and the deliveries it caused. */
@ConsolePages('events')
export class EventPagesController {
  constructor(
    private readonly log: ConsoleEventLog,
    private readonly events: EventsService,
    private readonly webhooks: WebhooksService,
  ) {}

  @Get()
  async list(@SignedIn() user: SignedInUser, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const { cursor } = await validAs(EventListQuery, { cursor: query.cursor }, 'query');
    const type = query.type === undefined || query.type === '' ? undefined : query.type;
    if (type !== undefined && !isEventKind(type)) throw ValidationError.field('type', `must be one of ${EVENT_KINDS.join(', ')}`);
    const page = await this.log.page(user.auth, type, cursor);
    sendPage(res, eventsPage(user, { events: page.events, type, next: page.next }));
  }

  @Get(':id')
  async show(@SignedIn() user: SignedInUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const event = await this.events.get(user.auth, id);
    sendPage(res, eventPage(user, event, await this.webhooks.listEventDeliveries(user.auth, event.id)));
  }
}
