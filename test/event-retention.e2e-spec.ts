import { Test, TestingModule } from '@nestjs/testing';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { EventRetentionRepository } from '../apps/worker/src/retention/event-retention.repository';
import { waitUntil } from '@app/testing';
import { EventRetention, PrunedRows } from '../apps/worker/src/retention/event-retention.service';
import { RetentionLock } from '../apps/worker/src/retention/retention-lock';
import { RetentionModule } from '../apps/worker/src/retention/retention.module';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Workers that other suites start prune the run's database under the run's prefix; these pruners share a lease of their own. */
const LEASE_PREFIX = `${process.env.REDIS_PREFIX}:retention-suite:`;
const DAY_MS = 86_400_000;

/** An id made `daysAgo` days ago: ids begin with their creation time, as a row of that age has. */
const idMadeDaysAgo = (prefix: 'evt' | 'dlv', daysAgo: number): string => newId(prefix, Date.now() - daysAgo * DAY_MS);

/**
 * The worker's retention prune on the real database and Redis, with rows back-dated around the
 * 30-day default: what is past retention goes, what is younger or still in use stays, and two
 * workers never prune at once.
 */
describe('event retention (worker)', () => {
  let moduleRef: TestingModule;
  let db: DataSource;
  const clients: Redis[] = [];
  let ownerId: string;

  /** A worker's pruner: its own Redis connection, the suite's lease. */
  function worker(): EventRetention {
    const redis = new Redis(REDIS_URL, { keyPrefix: LEASE_PREFIX });
    clients.push(redis);
    return new EventRetention(moduleRef.get(AppConfig), moduleRef.get(EventRetentionRepository), new RetentionLock(redis));
  }

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [ConfigModule, DatabaseModule, RetentionModule] }).compile();
    db = moduleRef.get(DataSource);
    ownerId = newId('usr');
    await db.query(`INSERT INTO users (id, email, username, password_hash) VALUES ($1, $2, $1, 'not-a-hash')`, [ownerId, `${ownerId}@example.com`]);
  });

  /** As if the hour a finished run holds the lease for had passed. */
  async function freeLease(): Promise<void> {
    const lease = new Redis(REDIS_URL, { keyPrefix: LEASE_PREFIX });
    await lease.del('retention:prune-lock');
    await lease.quit();
  }

  afterEach(freeLease);

  afterAll(async () => {
    await Promise.all(clients.map((redis) => redis.quit()));
    await moduleRef.close();
  });

  /** An event `daysAgo` days old; published unless said otherwise. */
  async function event(daysAgo: number, published = true): Promise<string> {
    const id = idMadeDaysAgo('evt', daysAgo);
    await db.query(
      `INSERT INTO events (id, type, data, owner_id, created_at, published_at)
       VALUES ($1, 'resource.created', '{"object":{}}', $2, now() - $3 * interval '1 day',
               CASE WHEN $4 THEN now() - $3 * interval '1 day' END)`,
      [id, ownerId, daysAgo, published],
    );
    return id;
  }

  /**
   * A delivery of the event made `daysAgo` days ago, with one attempt then; `lastActivityDaysAgo`
   * moves its last attempt (or manual retry) later.
   */
  async function delivery(
    eventId: string,
    status: 'pending' | 'succeeded' | 'failed',
    daysAgo: number,
    { lastActivityDaysAgo = daysAgo, test = false } = {},
  ): Promise<string> {
    // A webhook of its own: an event has one delivery per webhook.
    const webhookId = newId('wh');
    await db.query(
      `INSERT INTO webhooks (id, owner_id, url, events, secret) VALUES ($1, $2, 'https://hooks.example.com/in', '{resource.created}', 'a-secret-of-sixteen+')`,
      [webhookId, ownerId],
    );
    const id = idMadeDaysAgo('dlv', daysAgo);
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'resource.created', '{}', $4, $5,
               jsonb_build_array(jsonb_build_object('attempted_at', now() - $6 * interval '1 day', 'status_code', 500,
                                                    'duration_ms', 12, 'error', null, 'response_body', 'no')),
               CASE WHEN $5 = 'pending' THEN now() + interval '1 hour' END,
               now() - $6 * interval '1 day', now() - $7 * interval '1 day')`,
      [id, webhookId, eventId, test, status, daysAgo, lastActivityDaysAgo],
    );
    return id;
  }

  /** `count` published events 45 days old without deliveries, in one statement; returns their ids. */
  async function oldEvents(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => idMadeDaysAgo('evt', 45));
    await db.query(
      `INSERT INTO events (id, type, data, created_at, published_at)
       SELECT id, 'resource.created', '{"object":{}}', now() - interval '45 days', now() - interval '45 days' FROM unnest($1::text[]) AS id`,
      [ids],
    );
    return ids;
  }

  async function remaining(table: 'events' | 'webhook_deliveries', ids: string[]): Promise<string[]> {
    const rows: { id: string }[] = await db.query(`SELECT id FROM ${table} WHERE id = ANY($1::text[]) ORDER BY id`, [ids]);
    return rows.map((row) => row.id);
  }

  it('resolves what it needs from the modules the worker imports', () => {
    expect(moduleRef.get(EventRetention)).toBeInstanceOf(EventRetention);
  });

  it('deletes events and finished deliveries (with their attempts) past 30 days, and keeps what is younger or still in use', async () => {
    const old = await event(31);
    const oldDelivered = await delivery(old, 'succeeded', 31);
    const oldFailed = await delivery(old, 'failed', 31);
    const young = await event(29);
    const youngDelivered = await delivery(young, 'succeeded', 29);
    const oldWithoutDeliveries = await event(31);
    // Still retrying: the delivery is not pruned, and its event stays with it.
    const retrying = await event(31);
    const retryingDelivery = await delivery(retrying, 'pending', 31);
    // Retried by hand yesterday: its latest attempt is within the retention, so both stay.
    const retriedLately = await event(31);
    const retriedLatelyDelivery = await delivery(retriedLately, 'failed', 31, { lastActivityDaysAgo: 1 });
    // Never relayed (no worker ran for a month): its deliveries do not exist yet.
    const unpublished = await event(31, false);
    // A test trigger's delivery carries a sample event that was never stored.
    const oldTest = await delivery(idMadeDaysAgo('evt', 31), 'failed', 31, { test: true });

    expect(await worker().prune()).not.toBeNull();

    const events = [old, young, oldWithoutDeliveries, retrying, retriedLately, unpublished];
    const deliveries = [oldDelivered, oldFailed, youngDelivered, retryingDelivery, retriedLatelyDelivery, oldTest];
    expect(await remaining('events', events)).toEqual([young, retrying, retriedLately, unpublished].sort());
    expect(await remaining('webhook_deliveries', deliveries)).toEqual([youngDelivered, retryingDelivery, retriedLatelyDelivery].sort());
  });

  it('once the retrying delivery ends and ages out, deletes it and then its event', async () => {
    const retrying = await event(40);
    const pending = await delivery(retrying, 'pending', 40);
    await worker().prune();
    expect(await remaining('events', [retrying])).toEqual([retrying]);

    await db.query(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now() - interval '31 days' WHERE id = $1`, [pending]);
    await freeLease();
    await worker().prune();
    expect(await remaining('webhook_deliveries', [pending])).toEqual([]);
    expect(await remaining('events', [retrying])).toEqual([]);
  });

  it('deletes idempotency outcomes past their expiry, and keeps those of keys still kept', async () => {
    const outcome = (key: string, expiresIn: string) =>
      db.query(
        `INSERT INTO idempotency_outcomes (account_id, key_hash, fingerprint, claim_token, expires_at)
         VALUES ($1, $2, 'fingerprint', 'claim', now() + $3::interval)`,
        [ownerId, key, expiresIn],
      );
    await outcome('expired', '-1 minute');
    await outcome('kept', '23 hours');
    const pruned = await worker().prune();
    expect(pruned?.idempotencyOutcomes).toBeGreaterThanOrEqual(1);
    const rows: { key_hash: string }[] = await db.query(`SELECT key_hash FROM idempotency_outcomes WHERE account_id = $1`, [ownerId]);
    expect(rows.map((row) => row.key_hash)).toEqual(['kept']);
  });

  it('deletes more rows than one batch holds, batch after batch', async () => {
    const ids = await oldEvents(2500);
    const pruned = await worker().prune();
    expect(pruned?.events).toBeGreaterThanOrEqual(2500);
    expect(await remaining('events', ids)).toEqual([]);
  });

  it('lets one of two workers that start together prune; the other skips, and the lease then holds the fleet off for an hour', async () => {
    await oldEvents(2500);
    const [first, second] = await Promise.all([worker().prune(), worker().prune()]);
    const ran = [first, second].filter((outcome) => outcome !== null);
    expect(ran).toHaveLength(1);
    expect(ran[0]?.events).toBeGreaterThanOrEqual(2500);

    const lease = new Redis(REDIS_URL, { keyPrefix: LEASE_PREFIX });
    clients.push(lease);
    expect(await lease.pttl('retention:prune-lock')).toBeGreaterThan(59 * 60_000);
    expect(await worker().prune()).toBeNull();
  });

  it('keeps the lease through a long run: a worker that asks while another prunes is turned away each time', async () => {
    await oldEvents(3500);
    const lease = new Redis(REDIS_URL, { keyPrefix: LEASE_PREFIX });
    clients.push(lease);
    let done = false;
    const running = worker()
      .prune()
      .finally(() => (done = true));
    await waitUntil(async () => ((await lease.exists('retention:prune-lock')) === 1 ? true : undefined), 5000, 5);
    // Four batches with a pause after each full one: the others ask all the while.
    const whileRunning: (PrunedRows | null)[] = [];
    while (!done) {
      whileRunning.push(await worker().prune());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await running).toMatchObject({ events: expect.any(Number) });
    expect(whileRunning.length).toBeGreaterThan(1);
    expect(new Set(whileRunning)).toEqual(new Set([null]));
  });
});
