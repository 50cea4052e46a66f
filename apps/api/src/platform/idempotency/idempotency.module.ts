import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CrashPoints } from './crash-points';
import { IdempotencyOutcomeRepository } from './idempotency-outcome.repository';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyStore } from './idempotency.store';
import { TransactionStatuses } from './transaction-statuses';
import { registerWriteLedger } from './write-ledger';

/**
 * Idempotency-Key (docs/api.md#idempotency), all of it in this folder. A POST or PATCH with a key
 * goes through it in this order:
 *
 * 1. Claim. `writeLedgerMiddleware` gives the request its write ledger (write-ledger.ts, an
 *    AsyncLocalStorage around the route); `IdempotencyGuard`, the last guard, claims the key in
 *    Redis (`IdempotencyStore`). A key already taken is answered there: a replay, or why not.
 * 2. Run. Validation and the handler run inside the claim. `WriteLedgerSubscriber`, registered on
 *    the DataSource here, records from TypeORM's events what each write came to, and records the
 *    key's outcome row in the write's own transaction: a retry that Redis lets through after a
 *    crash stops at its first write.
 * 3. Record. `captureSends` (send-capture.ts) holds the answer where Express sends it; the guard
 *    stores it in Redis and in the outcome row before it leaves, or frees the key when nothing the
 *    request wrote took effect (`TransactionStatuses` asks PostgreSQL about a COMMIT left unanswered).
 * 4. Replay. A retry with the key is answered the stored answer, `Idempotent-Replayed: true`,
 *    written by the guard through `writeAnswer`; a one-time secret is never stored nor replayed.
 */
@Module({
  providers: [IdempotencyStore, IdempotencyGuard, IdempotencyOutcomeRepository, CrashPoints, TransactionStatuses],
  exports: [IdempotencyStore, IdempotencyGuard],
})
export class IdempotencyModule {
  constructor(dataSource: DataSource) {
    registerWriteLedger(dataSource);
  }
}
