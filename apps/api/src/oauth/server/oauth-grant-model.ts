import { Injectable } from '@nestjs/common';
import type OAuth2Server from '@node-oauth/oauth2-server';
import { ALL_SCOPES, isId, newId, OAUTH_ACCESS_TOKEN_PREFIX, Scope } from '@app/common';
import { OAuthClientRecord, OAuthClientRepository } from '../oauth-client.repository';
import { OAuthGrantRepository, OAuthTokenRecord } from '../oauth-grant.repository';
import { hashSecret, newOpaqueSecret, secretsEqual } from '../../auth/opaque-secret';

export const OAUTH_REFRESH_TOKEN_PREFIX = 'ort_';

/** The grants this server offers; any other `grant_type` is `unsupported_grant_type` (RFC 6749 5.2). */
export const OFFERED_GRANT_TYPES: readonly string[] = ['authorization_code', 'client_credentials', 'refresh_token'];

/** The library's "user": the account, and the grant every code and token of one consent shares. */
export interface OAuthGrantSubject {
  id: string;
  grantId: string;
}

/** The library's client, carrying what the rules below need. */
export interface OAuthServerClient extends OAuth2Server.Client {
  id: string;
  redirectUris: string[];
  grants: string[];
  scopes: Scope[];
  ownerId: string;
  confidential: boolean;
}

type Model = OAuth2Server.AuthorizationCodeModel & OAuth2Server.ClientCredentialsModel & OAuth2Server.RefreshTokenModel;

export function toServerClient(client: OAuthClientRecord): OAuthServerClient {
  return {
    id: client.id,
    redirectUris: client.redirectUris,
    // A public client has no secret to prove who it is, so it cannot act on its own account.
    grants: client.confidential ? ['authorization_code', 'refresh_token', 'client_credentials'] : ['authorization_code', 'refresh_token'],
    scopes: client.scopes,
    ownerId: client.ownerId,
    confidential: client.confidential,
  };
}

function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/**
 * Storage and rules for `@node-oauth/oauth2-server`: clients, codes and tokens in PostgreSQL,
 * secrets as SHA-256 hashes. A code or refresh token presented after its use revokes
 * everything its grant issued (RFC 6749 4.1.2 and RFC 9700 4.14).
 */
@Injectable()
export class OAuthGrantModel implements Model {
  constructor(
    private readonly clients: OAuthClientRepository,
    private readonly grants: OAuthGrantRepository,
  ) {}

  /**
   * `clientSecret` null is the authorization endpoint naming a client, which authenticates
   * nobody; otherwise a confidential client must present its secret and a public one none.
   */
  async getClient(clientId: string, clientSecret: string | null | undefined): Promise<OAuthServerClient | false> {
    const client = isId('cli', clientId) ? await this.clients.find(clientId) : null;
    if (!client) return false;
    if (clientSecret === null) return toServerClient(client);
    if (client.secretHash === null) return clientSecret === undefined ? toServerClient(client) : false;
    if (clientSecret === undefined || !secretsEqual(hashSecret(clientSecret), client.secretHash)) return false;
    return toServerClient(client);
  }

  generateAuthorizationCode(): Promise<string> {
    return Promise.resolve(newOpaqueSecret());
  }

  generateAccessToken(): Promise<string> {
    return Promise.resolve(`${OAUTH_ACCESS_TOKEN_PREFIX}${newOpaqueSecret()}`);
  }

  generateRefreshToken(): Promise<string> {
    return Promise.resolve(`${OAUTH_REFRESH_TOKEN_PREFIX}${newOpaqueSecret()}`);
  }

  /** No scope asked for means all the client may have; anything beyond that is `invalid_scope`. */
  validateScope(_user: OAuth2Server.User, client: OAuth2Server.Client, scope?: string[]): Promise<string[] | false> {
    const allowed = (client as OAuthServerClient).scopes;
    if (!scope || scope.length === 0) return Promise.resolve([...allowed]);
    const valid = scope.every((item) => isScope(item) && allowed.includes(item));
    return Promise.resolve(valid ? [...new Set(scope)] : false);
  }

  async saveAuthorizationCode(
    code: Pick<OAuth2Server.AuthorizationCode, 'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'>,
    client: OAuth2Server.Client,
    user: OAuth2Server.User,
  ): Promise<OAuth2Server.AuthorizationCode> {
    const subject = user as OAuthGrantSubject;
    await this.grants.insertCode({
      codeHash: hashSecret(code.authorizationCode),
      grantId: subject.grantId,
      clientId: client.id,
      userId: subject.id,
      redirectUri: code.redirectUri,
      scopes: (code.scope ?? []).filter(isScope),
      codeChallenge: code.codeChallenge ?? null,
      codeChallengeMethod: code.codeChallengeMethod ?? null,
      expiresAt: code.expiresAt,
    });
    return { ...code, client, user };
  }

  async getAuthorizationCode(authorizationCode: string): Promise<OAuth2Server.AuthorizationCode | false> {
    const code = await this.grants.findCode(hashSecret(authorizationCode));
    if (!code) return false;
    if (code.usedAt !== null) {
      await this.grants.revokeGrant(code.grantId);
      return false;
    }
    const client = await this.clients.find(code.clientId);
    if (!client) return false;
    const subject: OAuthGrantSubject = { id: code.userId, grantId: code.grantId };
    return {
      authorizationCode,
      expiresAt: code.expiresAt,
      redirectUri: code.redirectUri,
      scope: code.scopes,
      client: toServerClient(client),
      user: subject,
      codeChallenge: code.codeChallenge ?? undefined,
      codeChallengeMethod: code.codeChallengeMethod ?? undefined,
      grantId: code.grantId,
    };
  }

  /** Uses the code up; the loser of two racing exchanges is a reuse, and revokes the grant. */
  async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode): Promise<boolean> {
    if (await this.grants.useCode(hashSecret(code.authorizationCode))) return true;
    await this.grants.revokeGrant((code.user as OAuthGrantSubject).grantId);
    return false;
  }

  /** Client credentials act on the account that registered the client. */
  getUserFromClient(client: OAuth2Server.Client): Promise<OAuthGrantSubject> {
    return Promise.resolve({ id: (client as OAuthServerClient).ownerId, grantId: newId('ogr') });
  }

  async saveToken(token: OAuth2Server.Token, client: OAuth2Server.Client, user: OAuth2Server.User): Promise<OAuth2Server.Token> {
    const subject = user as OAuthGrantSubject;
    const scopes = (token.scope ?? []).filter(isScope);
    const common = { grantId: subject.grantId, clientId: client.id, userId: subject.id, scopes };
    const rows: Array<Omit<OAuthTokenRecord, 'revokedAt' | 'createdAt'>> = [
      { ...common, id: newId('otk'), tokenHash: hashSecret(token.accessToken), kind: 'access', expiresAt: token.accessTokenExpiresAt ?? new Date() },
    ];
    if (token.refreshToken) {
      rows.push({
        ...common,
        id: newId('otk'),
        tokenHash: hashSecret(token.refreshToken),
        kind: 'refresh',
        expiresAt: token.refreshTokenExpiresAt ?? new Date(),
      });
    }
    await this.grants.insertTokens(rows);
    return { ...token, client, user };
  }

  async getAccessToken(accessToken: string): Promise<OAuth2Server.Token | false> {
    const token = await this.grants.findToken(hashSecret(accessToken));
    if (!token || token.kind !== 'access' || token.revokedAt !== null) return false;
    const client = await this.clients.find(token.clientId);
    if (!client) return false;
    return {
      accessToken,
      accessTokenExpiresAt: token.expiresAt,
      scope: token.scopes,
      client: toServerClient(client),
      user: { id: token.userId, grantId: token.grantId },
    };
  }

  /** A refresh token used before (already rotated or revoked) revokes its whole grant. */
  async getRefreshToken(refreshToken: string): Promise<OAuth2Server.RefreshToken | false> {
    const token = await this.grants.findToken(hashSecret(refreshToken));
    if (!token || token.kind !== 'refresh') return false;
    if (token.revokedAt !== null) {
      await this.grants.revokeGrant(token.grantId);
      return false;
    }
    const client = await this.clients.find(token.clientId);
    if (!client) return false;
    return {
      refreshToken,
      refreshTokenExpiresAt: token.expiresAt,
      scope: token.scopes,
      client: toServerClient(client),
      user: { id: token.userId, grantId: token.grantId },
      tokenId: token.id,
    };
  }

  /** Rotation: the presented refresh token is used up; losing a race to it is a reuse. */
  async revokeToken(token: OAuth2Server.RefreshToken): Promise<boolean> {
    if (await this.grants.revokeToken(String(token.tokenId))) return true;
    await this.grants.revokeGrant((token.user as OAuthGrantSubject).grantId);
    return false;
  }
}
