import { Module } from '@nestjs/common';
import { FixedWindowStorage } from './fixed-window.storage';
import { RedisTurn } from './redis-turn';

/**
 * The turn's Redis pipeline and the fixed-window counters sent through it: one instance of each
 * for the whole app, so that whatever a request sends to Redis (its revocation check, its
 * rate-limit count) shares one round trip.
 */
@Module({
  providers: [RedisTurn, FixedWindowStorage],
  exports: [RedisTurn, FixedWindowStorage],
})
export class RedisTurnModule {}
