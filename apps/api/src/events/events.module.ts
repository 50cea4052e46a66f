import { Module } from '@nestjs/common';
import { SignedCursorCodec } from '../platform/pagination/signed-cursor.codec';
import { EventRepository } from './event.repository';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

/** The event log, read through the visibility rule shared with webhook delivery. */
@Module({
  controllers: [EventsController],
  providers: [EventRepository, EventsService, SignedCursorCodec],
  exports: [EventsService],
})
export class EventsModule {}
