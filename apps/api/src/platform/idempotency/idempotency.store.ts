import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { REDIS, RedisClient } from '@app/database';
import { IdempotencyOutcomeRepository, IdempotentAnswer, OutcomeKey } from './idempotency-outcome.repository';
import { TransactionStatus, TransactionStatuses } from './transaction-statuses';
import type { WriteOutcome } from './write-ledger';

/** How long a finished answer is replayed (docs/api.md#idempotency). */
export const RESULT_TTL_SECONDS = 24 * 60 * 60;
/**
 * How long a claim holds unless its holder renews it: how long a key stays taken after its
 * process died, or after Redis did not take its release.
 */
export const CLAIM_LEASE_MS = 6000;
/** The holder renews its claim this often while its request runs: three tries within a lease. */
const CLAIM_RENEWAL_MS = 2000;
/** A request still unanswered after this stops holding its key, so that a handler that never answers cannot keep it. */
const CLAIM_RENEWAL_LIMIT_MS = 60_000;

export type StoredResponse = IdempotentAnswer;

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

/** The first request answered an error after a write took effect, or after a COMMIT whose answer was lost. */
interface UnsettledEntry extends WriteOutcome {
  state: 'unsettled';
  fingerprint: string;
}

type Entry = RunningEntry | DoneEntry | UnsettledEntry;

/** The key a request claimed; only its holder can complete or release it. */
export interface IdempotencyClaim {
  redisKey: string;
  marker: string;
  /** The key's outcome row in PostgreSQL, which the request's first write records. */
  outcome: OutcomeKey;
  /** When the claim expires at the latest unless renewed (epoch ms): the last SET or renewal sent, plus the lease. */
  heldUntil: number;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'in_progress'; retryAfterSeconds: number }
  | { kind: 'reused' }
  | { kind: 'completed'; response: StoredResponse }
  | { kind: 'answer_lost'; tookEffect: boolean };

// The claim takes a free key, or reads what holds it and for how long, in one round trip.
const CLAIM_SCRIPT = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1} end
return {0, redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`;
// Compare-and-set, compare-and-expire and compare-and-delete, so that a claim that expired and
// was taken by another request is left alone.
const REPLACE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end return nil`;
const RENEW_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Whole seconds, at least one, that cover `ms`: the Retry-After of a wait. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Idempotency keys in Redis, shared by every API replica. A key is claimed atomically with
 * SET NX: of two concurrent requests with one key exactly one runs. A claim is a short lease its
 * holder renews, so that a key is never taken for long by a request that no longer runs.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly transactions: TransactionStatuses,
    private readonly outcomes: IdempotencyOutcomeRepository,
  ) {}

  async claim(accountId: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
    const keyHash = createHash('sha256').update(key).digest('base64url');
    const redisKey = `idempotency:${accountId}:${keyHash}`;
    const running: RunningEntry = { state: 'running', fingerprint, token: randomUUID() };
    const marker = JSON.stringify(running);
    const outcome: OutcomeKey = { accountId, keyHash, fingerprint, claimToken: running.token, retentionSeconds: RESULT_TTL_SECONDS };
    // A second round covers an unsettled entry another request took over meanwhile.
    for (let attempt = 0; attempt < 2; attempt++) {
      const sentAt = Date.now();
      const [taken, existing, ttlMs] = (await this.redis.eval(CLAIM_SCRIPT, 1, redisKey, marker, CLAIM_LEASE_MS)) as [number, string, number];
      if (taken === 1) return { kind: 'claimed', claim: { redisKey, marker, outcome, heldUntil: sentAt + CLAIM_LEASE_MS } };
      const stored = JSON.parse(existing) as Entry;
      if (stored.fingerprint !== fingerprint) return { kind: 'reused' };
      if (stored.state === 'running') return { kind: 'in_progress', retryAfterSeconds: retryAfterSeconds(ttlMs) };
      if (stored.state === 'done') return { kind: 'completed', response: stored.response };
      const settled = await this.resolveUnsettled(stored, outcome);
      if (settled !== 'never_committed') return settled;
      const takeoverAt = Date.now();
      if ((await this.redis.eval(REPLACE_SCRIPT, 1, redisKey, existing, marker, CLAIM_LEASE_MS)) === 'OK') {
        return { kind: 'claimed', claim: { redisKey, marker, outcome, heldUntil: takeoverAt + CLAIM_LEASE_MS } };
      }
    }
    return { kind: 'in_progress', retryAfterSeconds: 1 };
  }

  /**
   * What became of an unsettled first request: its writes in doubt are asked of PostgreSQL. The
   * key runs again only when none of them committed; PostgreSQL unreachable throws (503).
   */
  private async resolveUnsettled(entry: UnsettledEntry, key: OutcomeKey): Promise<ClaimOutcome | 'never_committed'> {
    if (entry.committed) return { kind: 'answer_lost', tookEffect: true };
    if (entry.statementsInDoubt) return { kind: 'answer_lost', tookEffect: false };
    const statuses = await this.statusesOf(entry, key);
    if (statuses.includes('committed')) return { kind: 'answer_lost', tookEffect: true };
    if (statuses.includes(null)) return { kind: 'answer_lost', tookEffect: false };
    // A COMMIT PostgreSQL is still working on: it ends within moments, one way or the other.
    if (statuses.includes('in progress')) return { kind: 'in_progress', retryAfterSeconds: 1 };
    return 'never_committed';
  }

  /**
   * How each transaction in doubt ended. The one holding the key's outcome row is told by the row
   * once its id is no longer running: asked after the status, so that a COMMIT PostgreSQL has just
   * finished is seen.
   */
  private async statusesOf(entry: UnsettledEntry, key: OutcomeKey): Promise<TransactionStatus[]> {
    const statuses = await this.transactions.of(entry.transactionsInDoubt);
    const recording = entry.outcomeTransactionInDoubt === undefined ? -1 : entry.transactionsInDoubt.indexOf(entry.outcomeTransactionInDoubt);
    if (recording < 0 || statuses[recording] === 'in progress') return statuses;
    statuses[recording] = (await this.outcomes.recordedIn(key, entry.transactionsInDoubt[recording])) ? 'committed' : 'aborted';
    return statuses;
  }

  /** Renews the claim while its request runs; call the answer to stop. */
  hold(claim: IdempotencyClaim): () => void {
    const started = Date.now();
    const renewal = setInterval(() => {
      const now = Date.now();
      if (now - started >= CLAIM_RENEWAL_LIMIT_MS) {
        clearInterval(renewal);
        return;
      }
      // Counted from the moment it is sent: Redis may apply a renewal whose answer never comes.
      claim.heldUntil = now + CLAIM_LEASE_MS;
      this.redis.eval(RENEW_SCRIPT, 1, claim.redisKey, claim.marker, CLAIM_LEASE_MS).catch(() => undefined);
    }, CLAIM_RENEWAL_MS);
    renewal.unref();
    return () => clearInterval(renewal);
  }

  async complete(claim: IdempotencyClaim, fingerprint: string, response: StoredResponse): Promise<void> {
    const entry: DoneEntry = { state: 'done', fingerprint, response };
    await this.redis.eval(REPLACE_SCRIPT, 1, claim.redisKey, claim.marker, JSON.stringify(entry), RESULT_TTL_SECONDS * 1000);
  }

  /** Frees the key so that the request can be tried again. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, claim.redisKey, claim.marker);
  }

  /** Keeps the key for what its writes came to; a retry learns it (`resolveUnsettled`) instead of writing again. */
  async leaveUnsettled(claim: IdempotencyClaim, fingerprint: string, writes: WriteOutcome): Promise<void> {
    const entry: UnsettledEntry = { state: 'unsettled', fingerprint, ...writes };
    await this.redis.eval(REPLACE_SCRIPT, 1, claim.redisKey, claim.marker, JSON.stringify(entry), RESULT_TTL_SECONDS * 1000);
  }
}
