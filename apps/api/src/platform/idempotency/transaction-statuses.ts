import { Injectable } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { Sql, SqlStatement, SqlStatements } from '@app/database';

/** How PostgreSQL says a transaction ended; null when it cannot tell any more (an id too old or unknown to it). */
export type TransactionStatus = 'committed' | 'aborted' | 'in progress' | null;

/** SQLSTATE of `pg_xact_status` given an id it has not issued (a restore or failover that lost it). */
const INVALID_PARAMETER_VALUE = '22023';

/** The statement of TransactionStatuses, by name. */
export const TRANSACTION_STATUS_SQL = {
  /** The status of each id, in the order asked. */
  statuses: (transactionIds: readonly string[]): SqlStatement => ({
    text: 'SELECT pg_xact_status(id::xid8) AS status FROM unnest($1::text[]) WITH ORDINALITY AS asked(id, position) ORDER BY position',
    values: [transactionIds],
  }),
} satisfies SqlStatements;

/**
 * Whether transactions committed, asked of PostgreSQL by id after their COMMIT's answer was
 * lost (`pg_xact_status`); any connection of the same cluster can answer.
 */
@Injectable()
export class TransactionStatuses {
  constructor(private readonly sql: Sql) {}

  async of(transactionIds: readonly string[]): Promise<TransactionStatus[]> {
    try {
      const rows = await this.sql.rows<{ status: TransactionStatus }>(TRANSACTION_STATUS_SQL.statuses(transactionIds));
      return rows.map((row) => row.status);
    } catch (error) {
      if (error instanceof DatabaseError && error.code === INVALID_PARAMETER_VALUE) return transactionIds.map(() => null);
      throw error;
    }
  }
}
