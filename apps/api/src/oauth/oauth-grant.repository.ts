import { Injectable } from '@nestjs/common';
import type { Scope } from '@app/common';
import { Sql, SqlStatement, SqlStatements } from '@app/database';

export interface OAuthAuthorizationCodeRecord {
  codeHash: string;
  grantId: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  scopes: Scope[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  expiresAt: Date;
  usedAt: Date | null;
}

export type OAuthTokenKind = 'access' | 'refresh';

export interface OAuthTokenRecord {
  id: string;
  tokenHash: string;
  kind: OAuthTokenKind;
  grantId: string;
  clientId: string;
  userId: string;
  scopes: Scope[];
  expiresAt: Date;
  /** When the token, or its whole grant, was revoked. */
  revokedAt: Date | null;
  createdAt: Date;
}

interface CodeRow {
  code_hash: string;
  grant_id: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: Scope[];
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: Date;
  used_at: Date | null;
}

interface TokenRow {
  id: string;
  token_hash: string;
  kind: OAuthTokenKind;
  grant_id: string;
  client_id: string;
  user_id: string;
  scopes: Scope[];
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

const toCode = (row: CodeRow): OAuthAuthorizationCodeRecord => ({
  codeHash: row.code_hash,
  grantId: row.grant_id,
  clientId: row.client_id,
  userId: row.user_id,
  redirectUri: row.redirect_uri,
  scopes: row.scopes,
  codeChallenge: row.code_challenge,
  codeChallengeMethod: row.code_challenge_method,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
});

const toToken = (row: TokenRow): OAuthTokenRecord => ({
  id: row.id,
  tokenHash: row.token_hash,
  kind: row.kind,
  grantId: row.grant_id,
  clientId: row.client_id,
  userId: row.user_id,
  scopes: row.scopes,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at,
});

/** The statements of OAuthGrantRepository, by name. */
export const OAUTH_GRANT_SQL = {
  insertCode: (code: Omit<OAuthAuthorizationCodeRecord, 'usedAt'>): SqlStatement => ({
    text: `INSERT INTO oauth_authorization_codes
         (code_hash, grant_id, client_id, user_id, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    values: [
      code.codeHash,
      code.grantId,
      code.clientId,
      code.userId,
      code.redirectUri,
      code.scopes,
      code.codeChallenge,
      code.codeChallengeMethod,
      code.expiresAt,
    ],
  }),
  findCode: (codeHash: string): SqlStatement => ({ text: `SELECT * FROM oauth_authorization_codes WHERE code_hash = $1`, values: [codeHash] }),
  useCode: (codeHash: string): SqlStatement => ({
    text: `UPDATE oauth_authorization_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL`,
    values: [codeHash],
  }),
  insertTokens: (tokens: ReadonlyArray<Omit<OAuthTokenRecord, 'revokedAt' | 'createdAt'>>): SqlStatement => ({
    text: `INSERT INTO oauth_tokens (id, token_hash, kind, grant_id, client_id, user_id, scopes, expires_at)
       SELECT id, token_hash, kind, grant_id, client_id, user_id, scopes::text[], expires_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
         AS t (id, token_hash, kind, grant_id, client_id, user_id, scopes, expires_at)`,
    values: [
      tokens.map((token) => token.id),
      tokens.map((token) => token.tokenHash),
      tokens.map((token) => token.kind),
      tokens.map((token) => token.grantId),
      tokens.map((token) => token.clientId),
      tokens.map((token) => token.userId),
      tokens.map((token) => `{${token.scopes.join(',')}}`),
      tokens.map((token) => token.expiresAt),
    ],
  }),
  findToken: (tokenHash: string): SqlStatement => ({
    text: `SELECT t.id, t.token_hash, t.kind, t.grant_id, t.client_id, t.user_id, t.scopes, t.expires_at, t.created_at,
              COALESCE(t.revoked_at, g.revoked_at) AS revoked_at
       FROM oauth_tokens t LEFT JOIN oauth_revoked_grants g ON g.grant_id = t.grant_id
       WHERE t.token_hash = $1`,
    values: [tokenHash],
  }),
  revokeToken: (id: string): SqlStatement => ({
    text: `UPDATE oauth_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`,
    values: [id],
  }),
  revokeGrant: (grantId: string): SqlStatement => ({
    text: `INSERT INTO oauth_revoked_grants (grant_id) VALUES ($1) ON CONFLICT (grant_id) DO NOTHING`,
    values: [grantId],
  }),
  useCodesOfGrant: (grantId: string): SqlStatement => ({
    text: `UPDATE oauth_authorization_codes SET used_at = now() WHERE grant_id = $1 AND used_at IS NULL`,
    values: [grantId],
  }),
} satisfies SqlStatements;

/** SQL for what the authorization server issues: authorization codes and tokens, both stored as hashes. */
@Injectable()
export class OAuthGrantRepository {
  constructor(private readonly sql: Sql) {}

  async insertCode(code: Omit<OAuthAuthorizationCodeRecord, 'usedAt'>): Promise<void> {
    await this.sql.run(OAUTH_GRANT_SQL.insertCode(code));
  }

  async findCode(codeHash: string): Promise<OAuthAuthorizationCodeRecord | null> {
    const [row] = await this.sql.rows<CodeRow>(OAUTH_GRANT_SQL.findCode(codeHash));
    return row ? toCode(row) : null;
  }

  /** Uses the code up; false when it was already used, so that of two racing exchanges one wins. */
  async useCode(codeHash: string): Promise<boolean> {
    const { rowCount } = await this.sql.run(OAUTH_GRANT_SQL.useCode(codeHash));
    return rowCount === 1;
  }

  async insertTokens(tokens: Array<Omit<OAuthTokenRecord, 'revokedAt' | 'createdAt'>>): Promise<void> {
    await this.sql.run(OAUTH_GRANT_SQL.insertTokens(tokens));
  }

  /**
   * The token (live, revoked or expired) whose secret has this hash; revoked when its grant is,
   * even if it was inserted after the grant's revocation.
   */
  async findToken(tokenHash: string): Promise<OAuthTokenRecord | null> {
    const [row] = await this.sql.rows<TokenRow>(OAUTH_GRANT_SQL.findToken(tokenHash));
    return row ? toToken(row) : null;
  }

  /** Revokes one token; false when it was already revoked. */
  async revokeToken(id: string): Promise<boolean> {
    const { rowCount } = await this.sql.run(OAUTH_GRANT_SQL.revokeToken(id));
    return rowCount === 1;
  }

  /**
   * Revokes a grant: every token of it, those issued later included (`findToken`), and any code
   * of it not yet used.
   */
  async revokeGrant(grantId: string): Promise<void> {
    await this.sql.transaction(async (manager) => {
      await this.sql.run(OAUTH_GRANT_SQL.revokeGrant(grantId), manager);
      await this.sql.run(OAUTH_GRANT_SQL.useCodesOfGrant(grantId), manager);
    });
  }
}
