import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import {
  deliveryKey,
  EventOutbox,
  Sql,
  UnstorableAttemptError,
  WebhookDeliveryRepository,
  WebhookRepository,
} from '@app/database';
import { EventRepository } from '../apps/api/src/events/event.repository';
import { createSuiteEnvironment, createTestApp, createUser, SuiteEnvironment, TestApp, TestUser } from './support';

/** The webhook schema and its repositories on the real database (docs/api.md#webhooks). */
describe('webhook and event repositories', () => {
  let suite: SuiteEnvironment;
  let testApp: TestApp;
  let dataSource: DataSource;
  let outbox: EventOutbox;
  let events: EventRepository;
  let webhooks: WebhookRepository;
  let deliveries: WebhookDeliveryRepository;
  let owner: TestUser;
  let other: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    // The relay claims every unpublished event of its database: a database of the suite's own
    // keeps out the events that suites running beside it write meanwhile.
    suite = await createSuiteEnvironment('webhooks_repository');
    testApp = await createTestApp({ env: suite.env });
    dataSource = testApp.app.get(DataSource);
    outbox = testApp.app.get(EventOutbox);
    events = testApp.app.get(EventRepository);
    webhooks = testApp.app.get(WebhookRepository);
    deliveries = testApp.app.get(WebhookDeliveryRepository);
    owner = await createUser(testApp.http);
    other = await createUser(testApp.http);
    admin = await createUser(testApp.http, { db: testApp.db, role: 'admin' });
    // Earlier events (registrations) are not this suite's concern.
    await dataSource.query('UPDATE events SET published_at = now()');
  });

  afterAll(async () => {
    await testApp.close();
    await suite.destroy();
  });

  function newWebhook(ownerId: string, subscribed: ('user.updated' | 'resource.created')[]) {
    return webhooks.insert({
      id: newId('wh'),
      ownerId,
      url: 'https://hooks.example.com/in',
      events: subscribed,
      secret: 'a-secret-of-sixteen+',
      description: null,
    });
  }

  it("gives each owned webhook's last day of deliveries by status and its newest delivery, in one query", async () => {
    const busy = await newWebhook(owner.id, ['resource.created']);
    const quiet = await newWebhook(owner.id, ['resource.created']);
    const others = await newWebhook(other.id, ['resource.created']);
    // [status, age]: the 25-hour-old failure is outside the day; the newest is the pending one a minute old.
    const made: Array<[string, string]> = [
      ['succeeded', '1 hour'],
      ['succeeded', '2 hours'],
      ['succeeded', '23 hours'],
      ['failed', '3 hours'],
      ['failed', '25 hours'],
      ['pending', '1 minute'],
      ['pending', '5 minutes'],
    ];
    for (const [status, age] of made) {
      const delivery = await deliveries.insertTest({ webhookId: busy.id, eventId: newId('evt'), eventType: 'resource.created', body: '{}' });
      await dataSource.query(`UPDATE webhook_deliveries SET status = $2, created_at = now() - $3::interval WHERE id = $1`, [delivery.id, status, age]);
    }
    await deliveries.insertTest({ webhookId: others.id, eventId: newId('evt'), eventType: 'resource.created', body: '{}' });

    const health = await deliveries.health(owner.id, [busy.id, quiet.id, others.id]);
    const byId = new Map(health.map((row) => [row.webhookId, row]));
    expect(health).toHaveLength(2);
    expect(byId.get(busy.id)).toEqual({ webhookId: busy.id, succeeded: 3, failed: 1, pending: 2, lastDelivery: { createdAt: expect.any(Date), status: 'pending' } });
    const newest = byId.get(busy.id)?.lastDelivery?.createdAt.getTime() ?? 0;
    expect(Date.now() - newest).toBeGreaterThan(50_000);
    expect(Date.now() - newest).toBeLessThan(120_000);
    expect(byId.get(quiet.id)).toEqual({ webhookId: quiet.id, succeeded: 0, failed: 0, pending: 0, lastDelivery: null });
    expect(await deliveries.health(owner.id, [])).toEqual([]);
  });

  it('keeps the secret out of ordinary reads', async () => {
    const created = await newWebhook(owner.id, ['user.updated']);
    expect(created).toMatchObject({ status: 'enabled', disabledReason: null, events: ['user.updated'] });
    expect(created.secret).toBeUndefined();
    expect(await webhooks.findOwned(other.id, created.id)).toBeNull();
    // Only the delivery worker's read of a pending delivery carries the secret, for signing.
    const test = await deliveries.insertTest({ webhookId: created.id, eventId: newId('evt'), eventType: 'user.updated', body: '{}' });
    expect(await deliveries.findPending(test.id)).toMatchObject({
      id: test.id,
      test: true,
      attemptCount: 0,
      webhook: { url: 'https://hooks.example.com/in', secret: 'a-secret-of-sixteen+', previousSecret: null, status: 'enabled' },
    });
    await deliveries.recordAttempt(
      test.id,
      { attempted_at: new Date().toISOString(), status_code: 200, duration_ms: 1, error: null, response_body: 'ok' },
      'succeeded',
      null,
    );
    expect(await deliveries.findPending(test.id)).toBeNull();
    await webhooks.disable(created.id, 'gave up');
    expect(await webhooks.findOwned(owner.id, created.id)).toMatchObject({ status: 'disabled', disabledReason: 'gave up' });
    expect(await webhooks.update(owner.id, created.id, { status: 'enabled' })).toMatchObject({
      status: 'enabled',
      disabledReason: null,
    });
    expect(await webhooks.update(other.id, created.id, { status: 'disabled' })).toBeNull();
    expect(await webhooks.delete(other.id, created.id)).toBe(false);
    expect(await webhooks.delete(owner.id, created.id)).toBe(true);
  });

  it('matches events to the enabled webhooks whose owner may see them, and relays each pair once', async () => {
    const ownerHook = await newWebhook(owner.id, ['user.updated']);
    const otherHook = await newWebhook(other.id, ['user.updated']);
    const adminHook = await newWebhook(admin.id, ['user.updated']);
    const unsubscribed = await newWebhook(admin.id, ['resource.created']);
    await dataSource.transaction((manager) =>
      outbox.append(manager, [{ type: 'user.updated', object: { id: owner.id }, ownerId: owner.id }]),
    );

    const relay = () =>
      dataSource.transaction(async (manager) => {
        const claimed = await outbox.claimUnpublished(manager, 100);
        const targets = await webhooks.matchEvents(manager, claimed);
        const ids = await deliveries.insertMissing(
          manager,
          targets.map((target) => ({
            ...target,
            eventType: 'user.updated' as const,
            body: '{}',
            test: false,
          })),
        );
        return { claimed, targets, ids };
      });
    const first = await relay();
    expect(first.claimed).toHaveLength(1);
    const eventId = first.claimed[0].id;
    expect(first.ids.size).toBe(2);
    expect(first.targets.map((target) => target.webhookId).sort()).toEqual([ownerHook.id, adminHook.id].sort());
    expect(first.targets.map((target) => target.webhookId)).not.toContain(otherHook.id);
    expect(first.targets.map((target) => target.webhookId)).not.toContain(unsubscribed.id);

    // Committed, the claim keeps the event from every later relay.
    expect((await relay()).claimed).toHaveLength(0);

    // Given back (its jobs could not be queued), it is relayed again into the same deliveries.
    await outbox.release([eventId]);
    const again = await relay();
    expect(again.claimed.map((event) => event.id)).toEqual([eventId]);
    expect(again.ids.size).toBe(2);
    for (const hook of [ownerHook, adminHook]) {
      expect(again.ids.get(deliveryKey(eventId, hook.id))).toBe(first.ids.get(deliveryKey(eventId, hook.id)));
    }
    const [, count] = await deliveries.list(ownerHook.id, {}, 0, 10);
    expect(count).toBe(1);
    expect((await relay()).claimed).toHaveLength(0);
  });

  it('records attempts on a delivery', async () => {
    const hook = await newWebhook(owner.id, ['user.updated']);
    const delivery = await deliveries.insertTest({ webhookId: hook.id, eventId: newId('evt'), eventType: 'user.updated', body: '{}' });
    const attempt = { attempted_at: new Date().toISOString(), status_code: 500, duration_ms: 3, error: null, response_body: 'no' };
    await deliveries.recordAttempt(delivery.id, attempt, 'failed', null);
    expect(await deliveries.find(hook.id, delivery.id)).toMatchObject({ status: 'failed', attempts: [attempt], test: true });
    expect(await deliveries.reopen(delivery.id)).toMatchObject({ status: 'pending' });
  });

  it('shares one statement among the reads and records of one turn, and keeps two records of one delivery', async () => {
    const hook = await newWebhook(owner.id, ['user.updated']);
    const made = await Promise.all(
      [1, 2, 3].map(() => deliveries.insertTest({ webhookId: hook.id, eventId: newId('evt'), eventType: 'user.updated', body: '{}' })),
    );
    const statements = jest.spyOn(testApp.app.get(Sql), 'run');
    const pending = await Promise.all([...made.map((delivery) => deliveries.findPending(delivery.id)), deliveries.findPending('dlv_missing')]);
    expect(pending.map((delivery) => delivery?.id ?? null)).toEqual([...made.map((delivery) => delivery.id), null]);
    const attempt = (status_code: number) => ({ attempted_at: new Date().toISOString(), status_code, duration_ms: 3, error: null, response_body: '' });
    const [first, second, third] = made;
    await Promise.all([
      deliveries.recordAttempt(first.id, attempt(500), 'pending', new Date(Date.now() + 60_000)),
      deliveries.recordAttempt(second.id, attempt(200), 'succeeded', null),
      deliveries.recordAttempt(first.id, attempt(200), 'succeeded', null),
      deliveries.recordAttempt(third.id, attempt(410), 'failed', null),
    ]);
    // One read, then the records in two statements: the first delivery appears twice.
    expect(statements).toHaveBeenCalledTimes(3);
    statements.mockRestore();
    expect(await deliveries.find(hook.id, first.id)).toMatchObject({ status: 'succeeded', attempts: [{ status_code: 500 }, { status_code: 200 }] });
    expect(await deliveries.find(hook.id, second.id)).toMatchObject({ status: 'succeeded', attempts: [{ status_code: 200 }] });
    expect(await deliveries.find(hook.id, third.id)).toMatchObject({ status: 'failed', attempts: [{ status_code: 410 }] });
  });

  it('stores what a receiver answered whatever its characters, with NUL and lone surrogates replaced', async () => {
    const hook = await newWebhook(owner.id, ['user.updated']);
    const delivery = await deliveries.insertTest({ webhookId: hook.id, eventId: newId('evt'), eventType: 'user.updated', body: '{}' });
    const attempt = {
      attempted_at: new Date().toISOString(),
      status_code: 200,
      duration_ms: 3,
      error: null,
      response_body: 'ok\u0000 \ud800 \uD83D\uDE00',
      response_headers: { 'x-odd': 'a\u0000b' },
    };
    await deliveries.recordAttempt(delivery.id, attempt, 'succeeded', null);
    expect(await deliveries.find(hook.id, delivery.id)).toMatchObject({
      status: 'succeeded',
      attempts: [{ response_body: 'ok\uFFFD \uFFFD \uD83D\uDE00', response_headers: { 'x-odd': 'a\uFFFDb' } }],
    });
  });

  it('writes the other records of a turn one by one when PostgreSQL refuses one, and rejects only that one', async () => {
    const hook = await newWebhook(owner.id, ['user.updated']);
    const [first, refused, third] = await Promise.all(
      [1, 2, 3].map(() => deliveries.insertTest({ webhookId: hook.id, eventId: newId('evt'), eventType: 'user.updated', body: '{}' })),
    );
    const attempt = { attempted_at: new Date().toISOString(), status_code: 500, duration_ms: 3, error: null, response_body: '' };
    // Beyond timestamptz's range: PostgreSQL refuses this record's data (SQLSTATE class 22), and so the statement carrying it.
    const outOfRange = new Date(8.64e15);
    const written = await Promise.allSettled([
      deliveries.recordAttempt(first.id, attempt, 'failed', null),
      deliveries.recordAttempt(refused.id, attempt, 'pending', outOfRange),
      deliveries.recordAttempt(third.id, attempt, 'failed', null),
    ]);
    expect(written.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((written[1] as PromiseRejectedResult).reason).toBeInstanceOf(UnstorableAttemptError);
    expect(await deliveries.find(hook.id, first.id)).toMatchObject({ status: 'failed', attempts: [{ status_code: 500 }] });
    expect(await deliveries.find(hook.id, third.id)).toMatchObject({ status: 'failed', attempts: [{ status_code: 500 }] });
    expect(await deliveries.find(hook.id, refused.id)).toMatchObject({ status: 'pending', attempts: [] });
  });

  it('lets two relays claim disjoint batches (SKIP LOCKED)', async () => {
    await dataSource.transaction((manager) =>
      outbox.append(manager, [
        { type: 'user.updated', object: { n: 1 }, ownerId: owner.id },
        { type: 'user.updated', object: { n: 2 }, ownerId: owner.id },
      ]),
    );
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      const held = await outbox.claimUnpublished(runner.manager, 1);
      const second = await dataSource.transaction((manager) => outbox.claimUnpublished(manager, 10));
      expect(held).toHaveLength(1);
      expect(second.map((event) => event.id)).not.toContain(held[0].id);
      expect(second.length).toBeGreaterThanOrEqual(1);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('lists events by the visibility rule: the owner sees their own, an admin sees all', async () => {
    const ownerEvents = await events.listVisible({ userId: owner.id, isAdmin: false }, 100);
    expect(ownerEvents.length).toBeGreaterThan(0);
    expect(ownerEvents.every((event) => event.ownerId === owner.id)).toBe(true);
    const adminEvents = await events.listVisible({ userId: admin.id, isAdmin: true }, 100);
    expect(adminEvents.some((event) => event.ownerId === other.id)).toBe(true);
    expect(await events.findVisible({ userId: other.id, isAdmin: false }, ownerEvents[0].id)).toBeNull();
    expect(await events.findVisible({ userId: admin.id, isAdmin: true }, ownerEvents[0].id)).not.toBeNull();
    const older = await events.listVisible({ userId: owner.id, isAdmin: false }, 100, ownerEvents[0].id);
    expect(older.map((event) => event.id)).not.toContain(ownerEvents[0].id);
  });
});
