import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { REDIS } from '@app/database';

/** How long a finished answer is replayed (docs/api.md#idempotency). */
export const RESULT_TTL_SECONDS = 24 * 60 * 60;
/** How long a claim holds when its process dies before answering. */
export const CLAIM_TTL_SECONDS = 60;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as sent, or null for an answer without one. */
  body: string | null;
}

interface RunningEntry {
  state: 'running';
  fingerprint: string;
  token: string;
}

interface DoneEntry {
  state: 'done';
  fingerprint: string;
  response: StoredResponse;
}

/** The key a request claimed; only its holder can complete or release it. */
export interface IdempotencyClaim {
  redisKey: string;
  marker: string;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'in_progress' }
  | { kind: 'reused' }
  | { kind: 'completed'; response: StoredResponse };

// Compare-and-set and compare-and-delete, so that a claim that expired and was taken by
// another request is left alone.
const COMPLETE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end return nil`;
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Idempotency keys in Redis, shared by every API replica. A key is claimed atomically with
 * SET NX: of two concurrent requests with one key exactly one runs.
 */
@Injectable()
export class IdempotencyStore {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async claim(accountId: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
    const redisKey = `idempotency:${accountId}:${createHash('sha256').update(key).digest('base64url')}`;
    const entry: RunningEntry = { state: 'running', fingerprint, token: randomUUID() };
    const marker = JSON.stringify(entry);
    // A second round covers a key released between our SET and GET.
    for (let attempt = 0; attempt < 2; attempt++) {
      if ((await this.redis.set(redisKey, marker, 'EX', CLAIM_TTL_SECONDS, 'NX')) === 'OK') {
        return { kind: 'claimed', claim: { redisKey, marker } };
      }
      const existing = await this.redis.get(redisKey);
      if (existing === null) continue;
      const stored = JSON.parse(existing) as RunningEntry | DoneEntry;
      if (stored.fingerprint !== fingerprint) return { kind: 'reused' };
      if (stored.state === 'running') return { kind: 'in_progress' };
      return { kind: 'completed', response: stored.response };
    }
    return { kind: 'in_progress' };
  }

  async complete(claim: IdempotencyClaim, fingerprint: string, response: StoredResponse): Promise<void> {
    const entry: DoneEntry = { state: 'done', fingerprint, response };
    await this.redis.eval(COMPLETE_SCRIPT, 1, claim.redisKey, claim.marker, JSON.stringify(entry), RESULT_TTL_SECONDS);
  }

  /** Frees the key so that the request can be tried again. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, claim.redisKey, claim.marker);
  }
}
