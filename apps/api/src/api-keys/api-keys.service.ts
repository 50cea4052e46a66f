import { Injectable } from '@nestjs/common';
import {
  AppError,
  AuthContext,
  AuthenticationRequiredError,
  isId,
  newId,
  offsetMeta,
  Paginated,
  ResourceNotFoundError,
} from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeyEntity } from '@app/database';
import { ApiKeyRepository } from './api-key.repository';
import { hashSecret } from '../auth/opaque-secret';
import { apiKeyEnvironment, apiKeyPrefix, KeyEnvironment, newApiKeySecret } from './api-key-secret';
import { ApiKeyView, CreatedApiKeyView, toApiKeyView } from './api-key.view';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { CreateApiKeyDto, RollApiKeyDto } from './dto/create-api-key.dto';
import { DEFAULT_OVERLAP_SECONDS } from '../platform/validation/time-fields';
import { VerifiedApiKeyCache } from './verified-api-key.cache';

const DEFAULT_PER_PAGE = 20;
/** How stale `last_used_at` may be: a busy key is written at most once per interval. */
const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class ApiKeysService {
  private readonly environment: KeyEnvironment;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly verified: VerifiedApiKeyCache,
    config: AppConfig,
  ) {
    this.environment = config.APP_ENV;
  }

  /** Makes a key for the caller; the secret is in this answer only. */
  async create(auth: AuthContext, input: CreateApiKeyDto): Promise<CreatedApiKeyView> {
    const secret = newApiKeySecret(this.environment);
    const key = await this.keys.insert({
      id: newId('key'),
      userId: auth.userId,
      name: input.name,
      scopes: input.scopes,
      prefix: apiKeyPrefix(secret),
      secretHash: hashSecret(secret),
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    });
    return { ...toApiKeyView(key), key: secret };
  }

  /**
   * Makes a new key with the name and scopes of one of the caller's live keys (the environment
   * is this service's, as the old key's is); the old key keeps working for `expires_in` seconds
   * (a day by default, 0: it stops at once) or until its own `expires_at`, when that is sooner.
   * An expired or deleted key is 404 `not_found`; another user's key is as unknown as a missing one.
   */
  async roll(auth: AuthContext, id: string, input: RollApiKeyDto): Promise<CreatedApiKeyView> {
    if (!isId('key', id)) throw new ResourceNotFoundError('API key', id);
    const secret = newApiKeySecret(this.environment);
    const overlapSeconds = input.expires_in ?? DEFAULT_OVERLAP_SECONDS;
    const outcome = await this.keys.rollLive(
      auth.userId,
      id,
      { id: newId('key'), prefix: apiKeyPrefix(secret), secretHash: hashSecret(secret), expiresAt: null },
      new Date(Date.now() + overlapSeconds * 1000),
    );
    if ('refused' in outcome) {
      if (outcome.refused === 'unknown') throw new ResourceNotFoundError('API key', id);
      const state = outcome.refused === 'expired' ? 'has expired' : 'was deleted';
      throw new AppError('not_found', `API key ${id} ${state}: only a live key can be rolled. Create a new key with POST /v2/api-keys.`);
    }
    // Replicas that trust the old key from their cache read its new expires_at.
    await this.verified.announceRevocation(id);
    return { ...toApiKeyView(outcome.rolled), key: secret };
  }

  async list(auth: AuthContext, query: OffsetPageQuery, basePath: string): Promise<Paginated<ApiKeyView>> {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const [keys, total] = await this.keys.listLive(auth.userId, (page - 1) * perPage, perPage);
    return new Paginated(keys.map(toApiKeyView), { ...offsetMeta(basePath, {}, page, perPage, total) });
  }

  /**
   * Revokes one of the caller's keys; another user's key is as unknown as a missing one. Every
   * replica stops trusting it at once; should the announcement fail, the request fails too
   * (503) while the key stays revoked in PostgreSQL, and no replica trusts it past the TTL.
   */
  async revoke(auth: AuthContext, id: string): Promise<void> {
    if (!isId('key', id) || !(await this.keys.revoke(auth.userId, id))) {
      throw new ResourceNotFoundError('API key', id);
    }
    await this.verified.announceRevocation(id);
  }

  /**
   * The live key with this secret, or a 401 that says what is wrong with it. A key verified in
   * the last minute comes from VerifiedApiKeyCache; `last_used_at` is written when the key is
   * read from PostgreSQL and was last recorded a minute ago or more.
   */
  async authenticate(presented: string): Promise<ApiKeyEntity> {
    const environment = apiKeyEnvironment(presented);
    if (environment === null) {
      throw new AuthenticationRequiredError('The API key is malformed. Keys look like sk_test_... or sk_live_...; create one with POST /v2/api-keys.');
    }
    if (environment !== this.environment) {
      throw new AuthenticationRequiredError(
        `This is a ${environment} API key (sk_${environment}_...), but this is the ${this.environment} environment: use a sk_${this.environment}_ key.`,
      );
    }
    const secretHash = hashSecret(presented);
    // A key trusted from the cache may have expired since it was read.
    return refuseExpired(await this.verified.resolve(secretHash, () => this.verify(secretHash)));
  }

  /** Reads the key from PostgreSQL, refuses it unless it is live, and records its use. */
  private async verify(secretHash: string): Promise<ApiKeyEntity> {
    const key = await this.keys.findBySecretHash(secretHash);
    if (!key) throw new AuthenticationRequiredError('The API key is not valid.');
    if (key.revokedAt) throw new AuthenticationRequiredError('The API key has been revoked.');
    refuseExpired(key);
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.keys.touch(key.id);
    }
    return key;
  }
}

/** The key, unless its `expires_at` has passed: then a 401 that says it has expired, and when. */
function refuseExpired(key: ApiKeyEntity): ApiKeyEntity {
  if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) {
    throw new AuthenticationRequiredError(
      `The API key has expired (at ${key.expiresAt.toISOString()}): create a new key with POST /v2/api-keys, or roll a live one.`,
    );
  }
  return key;
}
