import type { ServerResponse } from 'node:http';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { WebhookDeliveryRepository } from '@app/database';
import { WEBHOOK_DELIVERIES_QUEUE } from '@app/queue';
import { verifyWebhook } from '@rms/client';
import {
  createSuiteEnvironment,
  createTestApp,
  createUser,
  HttpsReceiver,
  ReceivedRequest,
  RunningWorker,
  startBuiltWorker,
  startHttpsReceiver,
  SuiteEnvironment,
  TestApp,
  TestUser,
  waitUntil,
} from './support';

/**
 * What built worker processes send through a webhook's lifecycle (decisions §14,
 * docs/webhooks.md): both signatures while a rotation overlaps, nothing while paused and then
 * every held delivery oldest first, and a recovery that survives a worker killed in the middle.
 * The suite has a database and Redis prefix of its own, shared by its API and its workers; the
 * retry schedule and the overlaps are short, so that it runs in seconds.
 */
describe('webhook lifecycle: what the worker sends', () => {
  let suite: SuiteEnvironment;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let db: DataSource;
  let owner: TestUser;
  const workers: RunningWorker[] = [];
  const handlers = new Map<string, (request: ReceivedRequest, res: ServerResponse) => void>();

  beforeAll(async () => {
    suite = await createSuiteEnvironment('lifecycle');
    Object.assign(process.env, suite.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startHttpsReceiver();
    receiver.respond((request, res) => {
      const handler = handlers.get(request.url);
      if (handler) handler(request, res);
      else res.writeHead(200).end('ok');
    });
    t = await createTestApp();
    db = t.app.get(DataSource);
    owner = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    await worker();
  }, 90_000);

  afterAll(async () => {
    await Promise.all(workers.splice(0).map((running) => running.kill()));
    await t?.close();
    await receiver?.close();
    await suite?.destroy();
  });

  /** One delivery at a time, so that the order of arrival is the order of sending. */
  async function worker(): Promise<RunningWorker> {
    const started = await startBuiltWorker({
      ...suite.env,
      NODE_EXTRA_CA_CERTS: receiver.certFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RELAY_INTERVAL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE_MS: '0,50,50,50,50',
      WEBHOOK_DELIVERY_CONCURRENCY: '1',
    });
    workers.push(started);
    return started;
  }

  const bearer = (): [string, string] => ['Authorization', `Bearer ${owner.accessToken}`];

  async function subscribe(path: string): Promise<{ id: string; secret: string }> {
    const res = await t.http
      .post('/v2/webhooks')
      .set(...bearer())
      .send({ url: `https://127.0.0.1:${receiver.port}${path}`, events: ['resource.created'] })
      .expect(201);
    return res.body.data;
  }

  async function createResources(names: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const name of names) ids.push((await t.http.post('/v2/resources').set(...bearer()).send({ name }).expect(201)).body.data.id);
    return ids;
  }

  const arrivals = (path: string): ReceivedRequest[] => receiver.received.filter((request) => request.url === path);
  const resourceOf = (request: ReceivedRequest): string => (JSON.parse(request.body) as { data: { object: { id: string } } }).data.object.id;

  interface DeliveryRow {
    id: string;
    status: string;
    next_attempt_at: string | null;
    attempts: Array<{ status_code: number | null }>;
  }
  async function deliveries(webhookId: string, query = ''): Promise<DeliveryRow[]> {
    return (await t.http.get(`/v2/webhooks/${webhookId}/deliveries?per_page=100${query}`).set(...bearer()).expect(200)).body.data;
  }

  it('signs with both secrets while a rotation overlaps: a receiver on either secret never refuses one', async () => {
    const hook = await subscribe('/rotate');
    // The receiver verifies with the secret it knows, and switches to the new one mid-overlap.
    let known = hook.secret;
    handlers.set('/rotate', (request, res) => {
      verifyWebhook(request.body, request.headers, known).then(
        () => res.writeHead(200).end('ok'),
        () => res.writeHead(401).end('bad signature'),
      );
    });
    const rotated = (await t.http.post(`/v2/webhooks/${hook.id}/secret/rotate`).set(...bearer()).send({ expires_in: 3 }).expect(200)).body.data;
    const [beforeSwitch] = await createResources(['signed by both, old secret known']);
    await waitUntil(() => arrivals('/rotate').find((request) => resourceOf(request) === beforeSwitch));
    known = rotated.secret;
    const [afterSwitch] = await createResources(['signed by both, new secret known']);
    const overlapping = await waitUntil(() => arrivals('/rotate').find((request) => resourceOf(request) === afterSwitch));
    for (const secret of [hook.secret, rotated.secret]) await verifyWebhook(overlapping.body, overlapping.headers, secret);
    expect(String(overlapping.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(overlapping.headers['x-webhook-signature-previous']).toEqual(expect.stringMatching(/^[0-9a-f]{64}$/));

    // Once the previous secret expires, deliveries carry the new secret's signatures alone.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, new Date(rotated.previous_secret_expires_at).getTime() - Date.now() + 200)));
    const [afterExpiry] = await createResources(['signed by the new secret']);
    const alone = await waitUntil(() => arrivals('/rotate').find((request) => resourceOf(request) === afterExpiry));
    expect(String(alone.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(alone.headers['x-webhook-signature-previous']).toBeUndefined();
    await expect(verifyWebhook(alone.body, alone.headers, hook.secret)).rejects.toMatchObject({ reason: 'signature_mismatch' });
    await verifyWebhook(alone.body, alone.headers, rotated.secret);

    const rows = await waitUntil(async () => {
      const all = await deliveries(hook.id);
      return all.length === 3 && all.every((row) => row.status !== 'pending') ? all : undefined;
    });
    expect(rows.map((row) => [row.status, row.attempts.length])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
  }, 60_000);

  it('holds deliveries while paused (tests still go out, never disabled), then sends them all, oldest first', async () => {
    const hook = await subscribe('/paused');
    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'paused' }).expect(200);
    const ids = await createResources(['held 1', 'held 2', 'held 3', 'held 4']);
    const held = await waitUntil(async () => {
      const rows = await deliveries(hook.id, '&status=pending');
      return rows.length === 4 && rows.every((row) => row.next_attempt_at === null) ? rows : undefined;
    });
    expect(held.every((row) => row.attempts.length === 0)).toBe(true);
    // A test trigger is sent even while paused.
    await t.http.post(`/v2/webhooks/${hook.id}/test`).set(...bearer()).expect(202);
    await waitUntil(() => (arrivals('/paused').length === 1 ? true : undefined));
    expect(String(arrivals('/paused')[0].headers['webhook-id'])).toMatch(/^evt_/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(arrivals('/paused')).toHaveLength(1);
    expect((await t.http.get(`/v2/webhooks/${hook.id}`).set(...bearer()).expect(200)).body.data.status).toBe('paused');

    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'enabled' }).expect(200);
    const sent = await waitUntil(() => {
      const got = arrivals('/paused').slice(1);
      return got.length >= 4 ? got : undefined;
    });
    expect(sent.map(resourceOf)).toEqual(ids);
    await waitUntil(async () => ((await deliveries(hook.id, '&status=succeeded')).length === 5 ? true : undefined));
  }, 60_000);

  it("holds a paused webhook's pending delivery, and answers a job whose delivery was settled since it read it that there is nothing to send", async () => {
    const hook = await subscribe('/settled-meanwhile');
    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'paused' }).expect(200);
    await createResources(['pending', 'settled meanwhile']);
    const [pending, settled] = await waitUntil(async () => {
      const rows = await deliveries(hook.id, '&status=pending');
      return rows.length === 2 && rows.every((row) => row.next_attempt_at === null) ? rows : undefined;
    });
    // Another job of the same delivery (a retry's, a recovery's) settled it after this one read it as pending.
    await db.query(`UPDATE webhook_deliveries SET status = 'succeeded' WHERE id = $1`, [settled.id]);
    const repository = t.app.get(WebhookDeliveryRepository, { strict: false });
    await expect(repository.hold(pending.id)).resolves.toBe('held');
    await expect(repository.hold(settled.id)).resolves.toBe('settled');
    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'enabled' }).expect(200);
    await waitUntil(() => (arrivals('/settled-meanwhile').length === 1 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(arrivals('/settled-meanwhile')).toHaveLength(1);
  }, 60_000);

  it('recovers every failed delivery of the window even when a worker is killed mid-recovery, each sent at least once', async () => {
    const hook = await subscribe('/recover');
    let failing = true;
    handlers.set('/recover', (_request, res) => {
      if (failing) res.writeHead(500).end('down');
      else setTimeout(() => res.writeHead(200).end('ok'), 100);
    });
    // One delivery fails five times and disables the webhook: recovering it is a conflict.
    await createResources(['lost first']);
    await waitUntil(async () => ((await t.http.get(`/v2/webhooks/${hook.id}`).set(...bearer())).body.data.status === 'disabled' ? true : undefined));
    const since = new Date(Date.now() - 3600_000).toISOString();
    expect((await t.http.post(`/v2/webhooks/${hook.id}/recover`).set(...bearer()).send({ since })).status).toBe(409);

    // Twenty more deliveries that failed during the receiver's outage: made while paused, then
    // given five failed attempts each, as the schedule would have left them.
    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'paused' }).expect(200);
    const ids = await createResources(Array.from({ length: 20 }, (_, index) => `lost ${index}`));
    await waitUntil(async () => ((await deliveries(hook.id, '&status=pending')).length === 20 ? true : undefined));
    // Every job done (each delivery held) before they are failed below, so that the recovery
    // alone sends them: a job still between reading one and holding it would find it settled.
    const queue = t.app.get<Queue>(getQueueToken(WEBHOOK_DELIVERIES_QUEUE));
    await waitUntil(async () => {
      const jobs = await queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
      return Object.values(jobs).every((count) => count === 0) ? true : undefined;
    });
    const failedAttempt = { attempted_at: new Date().toISOString(), status_code: 500, duration_ms: 2, error: null, response_body: 'down' };
    await db.query(
      `UPDATE webhook_deliveries SET status = 'failed', attempts = $2, next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending'`,
      [hook.id, JSON.stringify(Array(5).fill(failedAttempt))],
    );
    failing = false;
    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'enabled' }).expect(200);
    const before = arrivals('/recover').length;

    const recovered = await t.http.post(`/v2/webhooks/${hook.id}/recover`).set(...bearer()).send({ since }).expect(202);
    expect(recovered.body).toEqual({ data: { queued: 21 } });
    const [first] = workers.splice(0, 1);
    await waitUntil(() => (arrivals('/recover').length >= before + 3 ? true : undefined));
    await first.kill();
    const sentBeforeKill = arrivals('/recover').length - before;
    expect(sentBeforeKill).toBeLessThan(21);
    await worker();

    const rows = await waitUntil(async () => {
      const all = await deliveries(hook.id);
      return all.length === 21 && all.every((row) => row.status === 'succeeded') ? all : undefined;
    }, 60_000);
    for (const row of rows) {
      // The five failed attempts are kept; the fresh schedule's attempt follows them.
      expect(row.attempts.slice(0, 5).map((attempt) => attempt.status_code)).toEqual([500, 500, 500, 500, 500]);
      expect(row.attempts[row.attempts.length - 1].status_code).toBe(200);
    }
    // Every event of the window arrived; only the delivery in flight at the kill (one at a time)
    // may have arrived twice, and nothing arrives after.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const counts = new Map<string, number>();
    for (const id of arrivals('/recover').slice(before).map(resourceOf)) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(ids.every((id) => counts.has(id))).toBe(true);
    expect(counts.size).toBe(21);
    expect([...counts.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(1);
    expect([...counts.values()].every((count) => count <= 2)).toBe(true);
  }, 180_000);

  it('gives a recovered delivery a fresh schedule: five more failures disable the webhook again, all ten attempts kept', async () => {
    const hook = await subscribe('/still-down');
    handlers.set('/still-down', (_request, res) => res.writeHead(503).end('still down'));
    await createResources(['never answered']);
    const isDisabled = async (): Promise<true | undefined> =>
      (await t.http.get(`/v2/webhooks/${hook.id}`).set(...bearer())).body.data.status === 'disabled' ? true : undefined;
    await waitUntil(isDisabled);
    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'enabled' }).expect(200);
    const since = new Date(Date.now() - 3600_000).toISOString();
    expect((await t.http.post(`/v2/webhooks/${hook.id}/recover`).set(...bearer()).send({ since }).expect(202)).body).toEqual({ data: { queued: 1 } });
    await waitUntil(isDisabled);
    const [delivery] = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(delivery.attempts.map((attempt) => attempt.status_code)).toEqual(Array(10).fill(503));
    expect((await t.http.get(`/v2/webhooks/${hook.id}`).set(...bearer())).body.data.disabled_reason).toMatch(/failed 5 times in a row/);
  }, 60_000);
});
