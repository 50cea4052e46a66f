import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam } from '@nestjs/swagger';
import { AuthContext, idPattern, Paginated } from '@app/common';
import { Auth } from '../platform/decorators/auth.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { CursorPageMetaView } from '../platform/pagination/page-meta.view';
import { ValidQuery } from '../platform/validation/validated-parameters';
import { EventListQuery } from './dto/event-list.query';
import { EVENT_SCHEMA } from './event.openapi';
import { EventView } from './event.view';
import { EventsService } from './events.service';

@ApiTag('Events')
@ApiBearerAuth()
@ScopeArea('events')
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'List events',
    description:
      "The events the caller's webhooks could receive (their own resources and user record, their organizations' " +
      'resources; everything for platform admins), newest first, in cursor pages; `type` narrows them to one kind or ' +
      'several, each read from an index of its own. Each is the body a webhook receives. ' +
      'Events are kept for the retention period the operator sets (30 days by default), then deleted; an event whose ' +
      'delivery is still being retried stays until that delivery ends.',
  })
  @ApiListResponse(EVENT_SCHEMA, CursorPageMetaView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @ValidQuery() query: EventListQuery): Promise<Paginated<EventView>> {
    return this.events.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getEvent', summary: 'Get an event', description: 'One the caller could list; any other is 404, as is one deleted after the retention period (30 days by default).' })
  @ApiParam({ name: 'id', description: 'The event (`evt_`).', schema: { type: 'string', pattern: idPattern('evt'), example: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X' } })
  @ApiDataResponse(EVENT_SCHEMA)
  @ApiErrors(401, 403, 404, 429)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<EventView> {
    return this.events.get(auth, id);
  }
}
