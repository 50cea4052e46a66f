import { Module } from '@nestjs/common';
import { EventRetentionRepository } from './event-retention.repository';
import { EventRetention } from './event-retention.service';
import { RetentionLock } from './retention-lock';

/** Prunes events and webhook deliveries past EVENT_RETENTION_DAYS, one worker of the fleet at a time. */
@Module({
  providers: [EventRetentionRepository, RetentionLock, EventRetention],
})
export class RetentionModule {}
