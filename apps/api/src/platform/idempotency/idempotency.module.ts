import { Module } from '@nestjs/common';
import { CrashPoints } from './crash-points';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyStore } from './idempotency.store';

/** The Idempotency-Key guard and its store; the request pipeline applies it to every route. */
@Module({
  providers: [IdempotencyStore, IdempotencyGuard, CrashPoints],
  exports: [IdempotencyStore, IdempotencyGuard],
})
export class IdempotencyModule {}
