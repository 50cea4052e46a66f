import { Injectable } from '@nestjs/common';
import { Sql, SqlStatement, SqlStatements } from '@app/database';

/** An answer as an idempotent replay sends it again. */
export interface IdempotentAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as sent, or null for an answer without one. */
  body: string | null;
}

/** The Idempotency-Key a request holds, as its outcome row names it. */
export interface OutcomeKey {
  accountId: string;
  /** SHA-256 of the key (base64url): the key itself is the client's and is not kept. */
  keyHash: string;
  /** The request the key was first used for (method, path, body). */
  fingerprint: string;
  /** Tells this request's own row from one an earlier request with the key wrote. */
  claimToken: string;
  /** How long the outcome is kept, as the key is in Redis. */
  retentionSeconds: number;
}

/** What an earlier request with the same key left in PostgreSQL. */
export interface EarlierOutcome {
  /** The same method, path and body; otherwise the key is being reused for another request. */
  sameRequest: boolean;
  /** Its answer, once it was recorded; null when the request ended between its write and its answer. */
  answer: IdempotentAnswer | null;
  /** Its transaction committed; false for a mark made before a write outside a transaction, which may not have. */
  tookEffect: boolean;
}

/** A row of `recordOutcome`'s statement. */
export interface RecordedOutcomeRow {
  ours: boolean;
  same_request: boolean;
  response: IdempotentAnswer | null;
  took_effect: boolean;
  /** The id of the transaction it ran in (`xid8` as text). */
  xact_id: string | null;
}

/**
 * The outcome row of a keyed write. In a transaction, it is written only when the transaction
 * wrote something (it has an id), and answers no row otherwise; outside one, it is the mark made
 * just before the write. A row of the same key left by an earlier request is not replaced but
 * answered (`ours` false), so the write stops there; an expired row is taken over.
 */
function recordOutcomeStatement(key: OutcomeKey, inTransaction: boolean): SqlStatement {
  const expired = 'o.expires_at <= now()';
  return {
    text: `INSERT INTO idempotency_outcomes AS o (account_id, key_hash, fingerprint, claim_token, transaction_id, expires_at)
           SELECT $1, $2, $3, $4, ${inTransaction ? 'pg_current_xact_id_if_assigned()' : 'NULL::xid8'}, now() + $5 * interval '1 second'
           ${inTransaction ? 'WHERE pg_current_xact_id_if_assigned() IS NOT NULL' : ''}
           ON CONFLICT (account_id, key_hash) DO UPDATE SET
             fingerprint = CASE WHEN ${expired} THEN excluded.fingerprint ELSE o.fingerprint END,
             claim_token = CASE WHEN ${expired} THEN excluded.claim_token ELSE o.claim_token END,
             response = CASE WHEN ${expired} THEN NULL ELSE o.response END,
             transaction_id = CASE WHEN ${expired} THEN excluded.transaction_id
                                   WHEN o.claim_token = excluded.claim_token THEN COALESCE(excluded.transaction_id, o.transaction_id)
                                   ELSE o.transaction_id END,
             expires_at = CASE WHEN ${expired} THEN excluded.expires_at ELSE o.expires_at END
           RETURNING o.claim_token = $4 AS ours, o.fingerprint = $3 AS same_request, o.response,
                     o.transaction_id IS NOT NULL AS took_effect, pg_current_xact_id_if_assigned()::text AS xact_id`,
    values: [key.accountId, key.keyHash, key.fingerprint, key.claimToken, key.retentionSeconds],
  };
}

/**
 * The statements of the outcome rows, by name. `recordOutcome` is sent by the write ledger
 * (write-ledger.ts) on the write's own connection; the rest by IdempotencyOutcomeRepository.
 */
export const IDEMPOTENCY_OUTCOME_SQL = {
  recordOutcome: recordOutcomeStatement,
  earlierOf: (key: OutcomeKey): SqlStatement => ({
    text: `SELECT false AS ours, fingerprint = $3 AS same_request, response, transaction_id IS NOT NULL AS took_effect, NULL AS xact_id
         FROM idempotency_outcomes
        WHERE account_id = $1 AND key_hash = $2 AND claim_token <> $4 AND expires_at > now()`,
    values: [key.accountId, key.keyHash, key.fingerprint, key.claimToken],
  }),
  recordedIn: (key: OutcomeKey, transactionId: string): SqlStatement => ({
    text: `SELECT EXISTS (SELECT 1 FROM idempotency_outcomes WHERE account_id = $1 AND key_hash = $2 AND transaction_id = $3::xid8) AS recorded`,
    values: [key.accountId, key.keyHash, transactionId],
  }),
  recordAnswer: (key: OutcomeKey, answer: IdempotentAnswer): SqlStatement => ({
    text: `UPDATE idempotency_outcomes SET response = $4 WHERE account_id = $1 AND key_hash = $2 AND claim_token = $3`,
    values: [key.accountId, key.keyHash, key.claimToken, JSON.stringify(answer)],
  }),
  discard: (key: OutcomeKey): SqlStatement => ({
    text: `DELETE FROM idempotency_outcomes WHERE account_id = $1 AND key_hash = $2 AND claim_token = $3`,
    values: [key.accountId, key.keyHash, key.claimToken],
  }),
} satisfies SqlStatements;

/** The answer to a request whose key an earlier request's row holds. */
export function earlierOutcome(row: RecordedOutcomeRow): EarlierOutcome {
  return { sameRequest: row.same_request, answer: row.response, tookEffect: row.took_effect };
}

/**
 * The rest of an outcome row's life, after the write that made it: its answer, or its removal
 * when the write was refused and the key is freed for a retry; and what a retry refused before
 * any write reads of it. Only the request that wrote the row (its claim token) changes it.
 */
@Injectable()
export class IdempotencyOutcomeRepository {
  constructor(private readonly sql: Sql) {}

  /** The row another request with the key left, while it is kept; null when there is none. */
  async earlierOf(key: OutcomeKey): Promise<EarlierOutcome | null> {
    const [row] = await this.sql.rows<RecordedOutcomeRow>(IDEMPOTENCY_OUTCOME_SQL.earlierOf(key));
    return row === undefined ? null : earlierOutcome(row);
  }

  /**
   * Whether the key's outcome row was written by the transaction `transactionId`: once that
   * transaction has ended, whether it committed.
   */
  async recordedIn(key: OutcomeKey, transactionId: string): Promise<boolean> {
    const [row] = await this.sql.rows<{ recorded: boolean }>(IDEMPOTENCY_OUTCOME_SQL.recordedIn(key, transactionId));
    return row.recorded;
  }

  async recordAnswer(key: OutcomeKey, answer: IdempotentAnswer): Promise<void> {
    await this.sql.run(IDEMPOTENCY_OUTCOME_SQL.recordAnswer(key, answer));
  }

  async discard(key: OutcomeKey): Promise<void> {
    await this.sql.run(IDEMPOTENCY_OUTCOME_SQL.discard(key));
  }
}
