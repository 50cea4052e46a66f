import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Not, Repository } from 'typeorm';
import { LegacyTokenEntity } from '../entities/legacy-token.entity';
import { USER_ACCOUNTS } from './user-accounts.sql';

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

/** SQL for legacy tokens: bulk import by email and single-use exchange. */
@Injectable()
export class LegacyTokenRepository {
  constructor(@InjectRepository(LegacyTokenEntity) private readonly tokens: Repository<LegacyTokenEntity>) {}

  /**
   * Stores the tokens whose email names an account, in one statement per batch; a token already
   * stored is left as it is (importing a file twice changes nothing).
   */
  async importBatch(rows: LegacyTokenImport[]): Promise<LegacyTokenImportResult> {
    if (rows.length === 0) return { inserted: new Set(), unknownEmails: new Set() };
    const emails = [...new Set(rows.map((row) => row.email.toLowerCase()))];
    const known: Array<{ email: string }> = await this.tokens.query(
      `SELECT account.email FROM ${USER_ACCOUNTS} account WHERE account.email = ANY($1::text[])`,
      [emails],
    );
    const knownEmails = new Set(known.map((row) => row.email));
    const inserted: Array<{ token_hash: string }> = await this.tokens.query(
      `INSERT INTO legacy_tokens (token_hash, user_id)
       SELECT DISTINCT ON (t.token_hash) t.token_hash, u.id
       FROM unnest($1::text[], $2::text[]) AS t (token_hash, email)
       JOIN ${USER_ACCOUNTS} u ON u.email = lower(t.email)
       ON CONFLICT (token_hash) DO NOTHING
       RETURNING token_hash`,
      [rows.map((row) => row.tokenHash), rows.map((row) => row.email)],
    );
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
    // Wrapped in a SELECT: for a bare UPDATE, TypeORM returns the driver's [rows, count] pair.
    const rows: Array<{ user_id: string }> = await this.tokens.query(
      `WITH used AS (
         UPDATE legacy_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL RETURNING user_id
       )
       SELECT user_id FROM used`,
      [tokenHash],
    );
    return rows[0]?.user_id ?? null;
  }

  /** Whether the token was imported and has already been exchanged. */
  async isUsed(tokenHash: string): Promise<boolean> {
    return this.tokens.exists({ where: { tokenHash, usedAt: Not(IsNull()) } });
  }
}
