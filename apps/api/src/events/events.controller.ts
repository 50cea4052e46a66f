import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext, Paginated } from '@app/common';
import { Auth } from '../common/decorators/auth.decorator';
import { ScopeArea } from '../common/decorators/scope.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../common/openapi/api-responses';
import { EventListQuery } from './dto/event-list.query';
import { EventView } from './event.view';
import { EventsService } from './events.service';

@ApiTags('Events')
@ApiBearerAuth()
@ScopeArea('events')
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    summary: 'List events',
    description: "The events the caller's webhooks could receive, newest first, cursor-paginated.",
  })
  @ApiListResponse(EventView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @Query() query: EventListQuery): Promise<Paginated<EventView>> {
    return this.events.list(auth, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an event' })
  @ApiDataResponse(EventView)
  @ApiErrors(401, 403, 404, 429)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<EventView> {
    return this.events.get(auth, id);
  }
}
