import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { ApiKeyEntity, REDIS, RedisClient } from '@app/database';
import { ExpiringMap } from '../platform/cache/expiring-map';

/** How long a verified key is trusted without reading PostgreSQL again. */
export const VERIFIED_KEY_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Live API keys already verified by this process, by secret hash, trusted for a minute so that
 * a request with a key reads no PostgreSQL; concurrent requests with a key not yet cached share
 * one read. A revocation reaches every replica at once: the
 * revoking one publishes the key's id on `<REDIS_PREFIX>:api-keys:revoked` and each drops it.
 * Nothing is cached or trusted while the subscription is not live (before it starts, or after
 * its connection drops), so a revocation missed meanwhile is never answered from a stale entry.
 */
@Injectable()
export class VerifiedApiKeyCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VerifiedApiKeyCache.name);
  private readonly channel: string;
  private readonly byHash = new ExpiringMap<string, ApiKeyEntity>();
  private readonly hashById = new Map<string, string>();
  private subscriber: RedisClient | null = null;
  private live = false;
  /** Counts the revocations heard: a lookup that began before one must not be cached. */
  private revocations = 0;
  /** Reads under way, each with the revision it began at. */
  private readonly reading = new Map<string, { key: Promise<ApiKeyEntity>; revision: number }>();

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.channel = `${config.REDIS_PREFIX}:api-keys:revoked`;
  }

  onApplicationBootstrap(): void {
    // A connection of its own: one in subscriber mode can send no other command.
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, id: string) => this.drop(id));
    subscriber.on('close', () => this.distrust());
    subscriber.on('error', () => this.distrust());
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => (this.live = true),
        (error: unknown) => this.logger.warn({ err: error }, 'API key revocations not subscribed; keys are read from PostgreSQL'),
      );
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.distrust();
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /**
   * The key with this secret hash: cached, or from `read` (which verifies it in PostgreSQL and
   * throws when it is not live). A request joins a read under way only if no revocation was
   * heard since that read began, so that it never receives a key read before the revocation.
   */
  resolve(secretHash: string, read: () => Promise<ApiKeyEntity>): Promise<ApiKeyEntity> {
    const cached = this.get(secretHash);
    if (cached) return Promise.resolve(cached);
    const underWay = this.reading.get(secretHash);
    if (underWay && underWay.revision === this.revocations) return underWay.key;
    const revision = this.revocations;
    const key = read().then((verified) => {
      this.remember(secretHash, verified, revision);
      return verified;
    });
    const entry = { key, revision };
    this.reading.set(secretHash, entry);
    const settled = (): void => {
      if (this.reading.get(secretHash) === entry) this.reading.delete(secretHash);
    };
    key.then(settled, settled);
    return key;
  }

  private get(secretHash: string): ApiKeyEntity | undefined {
    return this.live ? this.byHash.get(secretHash) : undefined;
  }

  /** Caches a key verified from PostgreSQL, unless a revocation was heard since the read began. */
  private remember(secretHash: string, key: ApiKeyEntity, revision: number): void {
    if (!this.live || revision !== this.revocations) return;
    // Every cached key has its id here, so this bound holds both maps.
    if (this.hashById.size >= MAX_ENTRIES) this.clear();
    this.byHash.set(secretHash, key, Date.now() + VERIFIED_KEY_TTL_MS);
    this.hashById.set(key.id, secretHash);
  }

  /** Tells every replica, this one included, to stop trusting the key. */
  async announceRevocation(id: string): Promise<void> {
    this.drop(id);
    await this.redis.publish(this.channel, id);
  }

  private drop(id: string): void {
    this.revocations++;
    const secretHash = this.hashById.get(id);
    if (secretHash === undefined) return;
    this.byHash.delete(secretHash);
    this.hashById.delete(id);
  }

  private distrust(): void {
    this.live = false;
    this.revocations++;
    this.clear();
  }

  private clear(): void {
    this.byHash.clear();
    this.hashById.clear();
  }
}
