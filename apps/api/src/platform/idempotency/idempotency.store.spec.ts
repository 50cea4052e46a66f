import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { connectRunRedis } from '@app/testing';
import type { IdempotencyOutcomeRepository, OutcomeKey } from './idempotency-outcome.repository';
import type { TransactionStatus, TransactionStatuses } from './transaction-statuses';
import type { WriteOutcome } from './write-ledger';
import { CLAIM_LEASE_MS, IdempotencyClaim, IdempotencyStore, retryAfterSeconds } from './idempotency.store';

const NOTHING: WriteOutcome = { committed: false, transactionsInDoubt: [], statementsInDoubt: false };

/** Against the test run's Redis; PostgreSQL's word on transactions is scripted. */
describe('IdempotencyStore', () => {
  let redis: Redis;
  let store: IdempotencyStore;
  let statuses: TransactionStatus[];
  const asked: string[][] = [];
  /** The transactions whose outcome rows PostgreSQL holds, by key hash. */
  const recorded = new Map<string, string>();
  const rowsAsked: string[] = [];

  beforeAll(() => {
    redis = connectRunRedis();
    const transactions = {
      of: (ids: readonly string[]) => {
        asked.push([...ids]);
        return Promise.resolve(statuses);
      },
    } as TransactionStatuses;
    const outcomes = {
      recordedIn: (key: OutcomeKey, transactionId: string) => {
        rowsAsked.push(transactionId);
        return Promise.resolve(recorded.get(key.keyHash) === transactionId);
      },
    } as IdempotencyOutcomeRepository;
    store = new IdempotencyStore(redis, transactions, outcomes);
  });
  afterAll(async () => {
    await redis.quit();
  });
  beforeEach(() => {
    asked.length = 0;
    rowsAsked.length = 0;
    recorded.clear();
    statuses = [];
  });

  async function claimed(key: string, fingerprint = 'f'): Promise<IdempotencyClaim> {
    const outcome = await store.claim('usr_store', key, fingerprint);
    if (outcome.kind !== 'claimed') throw new Error(`expected a claim, got ${outcome.kind}`);
    return outcome.claim;
  }

  it('lets one request hold a key; another is told the seconds the claim still holds', async () => {
    const key = randomUUID();
    const claim = await claimed(key);
    expect(claim.heldUntil).toBeGreaterThan(Date.now() + CLAIM_LEASE_MS - 1000);
    expect(await store.claim('usr_store', key, 'f')).toEqual({ kind: 'in_progress', retryAfterSeconds: CLAIM_LEASE_MS / 1000 });
    expect(await store.claim('usr_store', key, 'another body')).toEqual({ kind: 'reused' });
    await store.release(claim);
    await claimed(key);
  });

  it('renews a held claim while its request runs, and stops when asked', async () => {
    const claim = await claimed(randomUUID());
    const firstHeldUntil = claim.heldUntil;
    const stop = store.hold(claim);
    const waitedMs = CLAIM_LEASE_MS / 2 + 500;
    await new Promise((resolve) => setTimeout(resolve, waitedMs));
    stop();
    // Unrenewed, less than the lease minus the wait would be left.
    expect(await redis.pttl(claim.redisKey)).toBeGreaterThan(CLAIM_LEASE_MS - waitedMs + 1000);
    expect(claim.heldUntil).toBeGreaterThan(firstHeldUntil + 1000);
  }, 10_000);

  it('replays a completed answer', async () => {
    const key = randomUUID();
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"data":{}}' };
    await store.complete(await claimed(key), 'f', response);
    expect(await store.claim('usr_store', key, 'f')).toEqual({ kind: 'completed', response });
  });

  it('answers an unsettled key by what its writes came to, without running it again unless none committed', async () => {
    const unsettled = async (writes: WriteOutcome): Promise<string> => {
      const key = randomUUID();
      await store.leaveUnsettled(await claimed(key), 'f', writes);
      return key;
    };
    const committedKey = await unsettled({ ...NOTHING, committed: true });
    expect(await store.claim('usr_store', committedKey, 'f')).toEqual({ kind: 'answer_lost', tookEffect: true });
    const statementKey = await unsettled({ ...NOTHING, statementsInDoubt: true });
    expect(await store.claim('usr_store', statementKey, 'f')).toEqual({ kind: 'answer_lost', tookEffect: false });
    expect(asked).toEqual([]);

    const inDoubt = await unsettled({ ...NOTHING, transactionsInDoubt: ['41', '42'] });
    statuses = ['aborted', 'committed'];
    expect(await store.claim('usr_store', inDoubt, 'f')).toEqual({ kind: 'answer_lost', tookEffect: true });
    statuses = ['aborted', null];
    expect(await store.claim('usr_store', inDoubt, 'f')).toEqual({ kind: 'answer_lost', tookEffect: false });
    statuses = ['in progress', 'aborted'];
    expect(await store.claim('usr_store', inDoubt, 'f')).toEqual({ kind: 'in_progress', retryAfterSeconds: 1 });
    expect(asked).toEqual([['41', '42'], ['41', '42'], ['41', '42']]);
    expect(await store.claim('usr_store', inDoubt, 'another body')).toEqual({ kind: 'reused' });

    // Rolled back, every one: the key is taken over by the retry, which runs.
    statuses = ['aborted', 'aborted'];
    expect((await store.claim('usr_store', inDoubt, 'f')).kind).toBe('claimed');
    expect(await store.claim('usr_store', inDoubt, 'f')).toEqual({ kind: 'in_progress', retryAfterSeconds: CLAIM_LEASE_MS / 1000 });
  });

  it("tells a keyed transaction's fate by its outcome row once its id is no longer running, whatever the id's status says", async () => {
    const key = randomUUID();
    const claim = await claimed(key);
    await store.leaveUnsettled(claim, 'f', { ...NOTHING, transactionsInDoubt: ['41', '42'], outcomeTransactionInDoubt: '42' });

    // Still running, as far as PostgreSQL knows: the row is not asked, the retry waits.
    statuses = ['aborted', 'in progress'];
    expect(await store.claim('usr_store', key, 'f')).toEqual({ kind: 'in_progress', retryAfterSeconds: 1 });
    expect(rowsAsked).toEqual([]);

    // The row is there: it committed, even where PostgreSQL no longer knows the id.
    recorded.set(claim.outcome.keyHash, '42');
    statuses = ['aborted', null];
    expect(await store.claim('usr_store', key, 'f')).toEqual({ kind: 'answer_lost', tookEffect: true });

    // No row: it rolled back, even where a crash issued its id again to a transaction that committed.
    recorded.clear();
    statuses = ['aborted', 'committed'];
    expect((await store.claim('usr_store', key, 'f')).kind).toBe('claimed');
    expect(rowsAsked).toEqual(['42', '42']);
  });

  it('rounds a wait up to whole seconds, at least one', () => {
    expect([retryAfterSeconds(-5), retryAfterSeconds(0), retryAfterSeconds(1), retryAfterSeconds(1000), retryAfterSeconds(5001)]).toEqual([1, 1, 1, 1, 6]);
  });
});
