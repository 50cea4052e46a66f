import { Injectable } from '@nestjs/common';
import { Sql, SqlStatement, SqlStatements } from '@app/database';
import { USER_ACCOUNTS } from '@app/database/published-sql/user-accounts.sql';

export interface LegacyTokenImport {
  tokenHash: string;
  email: string;
}

export interface LegacyTokenImportResult {
  /** Hashes that were stored by this call. */
  inserted: Set<string>;
  /** Emails (lower case) that match no account. */
  unknownEmails: Set<string>;
}

/** The statements of LegacyTokenRepository, by name. */
export const LEGACY_TOKEN_SQL = {
  knownEmails: (emails: readonly string[]): SqlStatement => ({
    text: `SELECT account.email FROM ${USER_ACCOUNTS} account WHERE account.email = ANY($1::text[])`,
    values: [emails],
  }),
  importBatch: (rows: readonly LegacyTokenImport[]): SqlStatement => ({
    text: `INSERT INTO legacy_tokens (token_hash, user_id)
       SELECT DISTINCT ON (t.token_hash) t.token_hash, u.id
       FROM unnest($1::text[], $2::text[]) AS t (token_hash, email)
       JOIN ${USER_ACCOUNTS} u ON u.email = lower(t.email)
       ON CONFLICT (token_hash) DO NOTHING
       RETURNING token_hash`,
    values: [rows.map((row) => row.tokenHash), rows.map((row) => row.email)],
  }),
  consume: (tokenHash: string): SqlStatement => ({
    text: `UPDATE legacy_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL RETURNING user_id`,
    values: [tokenHash],
  }),
  isUsed: (tokenHash: string): SqlStatement => ({
    text: `SELECT 1 FROM legacy_tokens WHERE token_hash = $1 AND used_at IS NOT NULL`,
    values: [tokenHash],
  }),
} satisfies SqlStatements;

/** SQL for legacy tokens: bulk import by email and single-use exchange. */
@Injectable()
export class LegacyTokenRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Stores the tokens whose email names an account, in one statement per batch; a token already
   * stored is left as it is (importing a file twice changes nothing).
   */
  async importBatch(rows: LegacyTokenImport[]): Promise<LegacyTokenImportResult> {
    if (rows.length === 0) return { inserted: new Set(), unknownEmails: new Set() };
    const emails = [...new Set(rows.map((row) => row.email.toLowerCase()))];
    const known = await this.sql.rows<{ email: string }>(LEGACY_TOKEN_SQL.knownEmails(emails));
    const knownEmails = new Set(known.map((row) => row.email));
    const inserted = await this.sql.rows<{ token_hash: string }>(LEGACY_TOKEN_SQL.importBatch(rows));
    return {
      inserted: new Set(inserted.map((row) => row.token_hash)),
      unknownEmails: new Set(emails.filter((email) => !knownEmails.has(email))),
    };
  }

  /**
   * Marks an unused token used and returns its account, atomically: of two concurrent
   * exchanges of one token only one succeeds.
   */
  async consume(tokenHash: string): Promise<string | null> {
    const [row] = await this.sql.rows<{ user_id: string }>(LEGACY_TOKEN_SQL.consume(tokenHash));
    return row?.user_id ?? null;
  }

  /** Whether the token was imported and has already been exchanged. */
  async isUsed(tokenHash: string): Promise<boolean> {
    const rows = await this.sql.rows(LEGACY_TOKEN_SQL.isUsed(tokenHash));
    return rows.length > 0;
  }
}
