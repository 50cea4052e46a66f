import { Injectable } from '@nestjs/common';
import {
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
import { ApiKeyRepository } from '@app/database/repositories/api-key.repository';
import { hashSecret } from '../auth/opaque-secret';
import { apiKeyEnvironment, apiKeyPrefix, KeyEnvironment, newApiKeySecret } from './api-key-secret';
import { ApiKeyView, CreatedApiKeyView, toApiKeyView } from './api-key.view';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
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
    });
    return { ...toApiKeyView(key), key: secret };
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
    return this.verified.resolve(secretHash, () => this.verify(secretHash));
  }

  /** Reads the key from PostgreSQL, refuses it unless it is live, and records its use. */
  private async verify(secretHash: string): Promise<ApiKeyEntity> {
    const key = await this.keys.findBySecretHash(secretHash);
    if (!key) throw new AuthenticationRequiredError('The API key is not valid.');
    if (key.revokedAt) throw new AuthenticationRequiredError('The API key has been revoked.');
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.keys.touch(key.id);
    }
    return key;
  }
}
