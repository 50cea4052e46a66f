import { Module } from '@nestjs/common';
import { ResourceCursorCodec } from '../resources/resource-cursor';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

/** The event log, read through the visibility rule shared with webhook delivery. */
@Module({
  controllers: [EventsController],
  providers: [EventsService, ResourceCursorCodec],
})
export class EventsModule {}
