import { Injectable } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { PooledReads } from '@app/database';

/** How PostgreSQL says a transaction ended; null when it cannot tell any more (an id too old or unknown to it). */
export type TransactionStatus = 'committed' | 'aborted' | 'in progress' | null;

/** SQLSTATE of `pg_xact_status` given an id it has not issued (a restore or failover that lost it). */
const INVALID_PARAMETER_VALUE = '22023';

/**
 * Whether transactions committed, asked of PostgreSQL by id after their COMMIT's answer was
 * lost (`pg_xact_status`); any connection of the same cluster can answer.
 */
@Injectable()
export class TransactionStatuses {
  constructor(private readonly reads: PooledReads) {}

  async of(transactionIds: readonly string[]): Promise<TransactionStatus[]> {
    try {
      const rows = await this.reads.rows<{ status: TransactionStatus }>({
        text: 'SELECT pg_xact_status(id::xid8) AS status FROM unnest($1::text[]) WITH ORDINALITY AS asked(id, position) ORDER BY position',
        values: [transactionIds],
      });
      return rows.map((row) => row.status);
    } catch (error) {
      if (error instanceof DatabaseError && error.code === INVALID_PARAMETER_VALUE) return transactionIds.map(() => null);
      throw error;
    }
  }
}
