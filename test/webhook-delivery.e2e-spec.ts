import { ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  createTestApp,
  createUser,
  freePort,
  built,
  HttpsReceiver,
  PROJECT_ROOT,
  ReceivedRequest,
  startHttpsReceiver,
  TestApp,
  TestUser,
  waitUntil,
} from './support';

/**
 * End to end: a change in the API, the worker's outbox relay and delivery processor (a real
 * worker process), and a real HTTPS receiver on 127.0.0.1 (docs/api.md#webhook-delivery).
 */
describe('webhook delivery', () => {
  let t: TestApp;
  let receiver: HttpsReceiver;
  let worker: ChildProcess;
  let owner: TestUser;
  let metricsPort: number;

  const bearer = (): [string, string] => ['Authorization', `Bearer ${owner.accessToken}`];

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    receiver = await startHttpsReceiver();
    t = await createTestApp();
    owner = await createUser(t.http);
    metricsPort = await freePort();
    worker = spawn(process.execPath, [built('apps/worker/src/main.ts')], {
      cwd: PROJECT_ROOT,
      stdio: 'ignore',
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: receiver.certFile,
        WEBHOOK_RETRY_SCHEDULE_MS: '0,20,20,20,20',
        WEBHOOK_RELAY_INTERVAL_MS: '50',
        WORKER_METRICS_PORT: String(metricsPort),
      },
    });
  }, 60000);

  afterAll(async () => {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
    await t.close();
    await receiver.close();
  });


  async function newWebhook(path: string, events: string[]): Promise<{ id: string; secret: string }> {
    const res = await t.http
      .post('/v2/webhooks')
      .set(...bearer())
      .send({ url: `https://127.0.0.1:${receiver.port}${path}`, events })
      .expect(201);
    return res.body.data;
  }

  const flakyCalls = new Map<string, number>();

  beforeAll(() => {
    // /ok answers 200 saying `X-Receiver: yes`, /flaky 500 once per event then 200, /slow 6 s
    // late once per event then at once, /redirect 302 to /redirected, /fail always 500, /gone 410.
    receiver.respond((request, res) => {
      const eventId = String(request.headers['x-webhook-event-id']);
      const calls = (flakyCalls.get(`${request.url} ${eventId}`) ?? 0) + 1;
      flakyCalls.set(`${request.url} ${eventId}`, calls);
      if (request.url === '/flaky') res.writeHead(calls === 1 ? 500 : 200).end();
      else if (request.url === '/slow' && calls === 1) setTimeout(() => res.writeHead(200).end('late'), 6000);
      else if (request.url === '/redirect') {
        res.writeHead(302, { Location: `https://127.0.0.1:${receiver.port}/redirected` }).end();
      } else if (request.url === '/fail') res.writeHead(500).end('down');
      else if (request.url === '/gone') res.writeHead(410).end();
      else res.writeHead(200, { 'X-Receiver': 'yes' }).end('ok');
    });
  });

  async function webhook(id: string): Promise<{ status: string; disabled_reason: string | null }> {
    return (await t.http.get(`/v2/webhooks/${id}`).set(...bearer()).expect(200)).body.data;
  }

  interface AttemptRead {
    status_code: number | null;
    error: string | null;
    request_headers: Record<string, string> | null;
    response_headers: Record<string, string> | null;
  }

  async function deliveries(webhookId: string): Promise<{ id: string; status: string; attempts: AttemptRead[] }[]> {
    return (await t.http.get(`/v2/webhooks/${webhookId}/deliveries`).set(...bearer()).expect(200)).body.data;
  }

  /** The exact bytes verify with `node:crypto` (hex) and with the Standard Webhooks package. */
  function expectSignedBy(secret: string, request: ReceivedRequest): void {
    const hex = createHmac('sha256', secret).update(request.body).digest('hex');
    expect(request.headers['x-webhook-signature']).toBe(hex);
    const payload = new Webhook(secret).verify(request.body, {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    }) as { id: string; type: string };
    expect(payload.id).toBe(request.headers['x-webhook-event-id']);
    expect(payload.type).toBe(request.headers['x-webhook-event-type']);
  }

  it('delivers resource events signed, with previous_data on update, verifiable by both schemes', async () => {
    const hook = await newWebhook('/ok', ['resource.created', 'resource.updated', 'resource.deleted']);
    const before = receiver.received.length;
    const created = await t.http.post('/v2/resources').set(...bearer()).send({ name: 'first' }).expect(201);
    const id = created.body.data.id as string;
    await t.http.patch(`/v2/resources/${id}`).set(...bearer()).send({ name: 'second' }).expect(200);
    await t.http.delete(`/v2/resources/${id}`).set(...bearer()).expect(204);
    const got = await waitUntil(() => {
      const mine = receiver.received.slice(before).filter((request) => request.body.includes(id));
      return Promise.resolve(mine.length >= 3 ? mine : undefined);
    });
    const byType = new Map(got.map((request) => [request.headers['x-webhook-event-type'], request]));
    expect([...byType.keys()].sort()).toEqual(['resource.created', 'resource.deleted', 'resource.updated']);
    for (const request of got) expectSignedBy(hook.secret, request);
    const updated = JSON.parse(byType.get('resource.updated')?.body ?? '{}');
    expect(updated).toMatchObject({ type: 'resource.updated', data: { object: { id, name: 'second' } } });
    expect(updated.previous_data).toMatchObject({ name: 'first' });
    expect(JSON.parse(byType.get('resource.created')?.body ?? '{}').previous_data).toBeNull();
    const listed = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows.length === 3 && rows.every((row) => row.status === 'succeeded') ? rows : undefined;
    });
    expect(listed.every((row) => row.attempts.length === 1 && row.attempts[0].status_code === 200)).toBe(true);
    // Each attempt records the headers the receiver got (all but Connection, which Node adds last) and those it answered with.
    for (const row of listed) {
      const [attempt] = row.attempts;
      const arrived = got.find((request) => request.headers['webhook-id'] === attempt.request_headers?.['webhook-id']);
      if (!arrived) throw new Error(`no request arrived with the webhook-id of delivery ${row.id}`);
      expect({ ...attempt.request_headers, connection: arrived.headers.connection }).toEqual(arrived.headers);
      expect(attempt.request_headers).toMatchObject({ 'content-type': 'application/json', 'webhook-signature': expect.stringMatching(/^v1,/) });
      expect(attempt.response_headers).toMatchObject({ 'x-receiver': 'yes' });
    }
  });

  it('retries a 500 and then succeeds', async () => {
    const hook = await newWebhook('/flaky', ['resource.created']);
    await t.http.post('/v2/resources').set(...bearer()).send({ name: 'flaky' }).expect(201);
    const [row] = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(row.attempts.map((attempt) => attempt.status_code)).toEqual([500, 200]);
  });

  it('gives up after five failures, disables the webhook, and delivers again once re-enabled', async () => {
    const hook = await newWebhook('/fail', ['resource.created']);
    await t.http.post('/v2/resources').set(...bearer()).send({ name: 'doomed' }).expect(201);
    const [row] = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(row.attempts.map((attempt) => attempt.status_code)).toEqual([500, 500, 500, 500, 500]);
    const disabled = await waitUntil(async () => {
      const current = await webhook(hook.id);
      return current.status === 'disabled' ? current : undefined;
    });
    expect(disabled.disabled_reason).toMatch(/failed 5 times/);

    await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'enabled', url: `https://127.0.0.1:${receiver.port}/ok` }).expect(200);
    await t.http.post('/v2/resources').set(...bearer()).send({ name: 'revived' }).expect(201);
    await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows.some((candidate) => candidate.status === 'succeeded') ? rows : undefined;
    });
  });

  it('disables a webhook at once on 410', async () => {
    const hook = await newWebhook('/gone', ['resource.created']);
    await t.http.post('/v2/resources').set(...bearer()).send({ name: 'gone' }).expect(201);
    const [row] = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(row.attempts).toHaveLength(1);
    expect(await webhook(hook.id)).toMatchObject({ status: 'disabled', disabled_reason: expect.stringMatching(/410/) });
  });

  it('test triggers send one sample attempt, never retried, never disabling', async () => {
    const ok = await newWebhook('/ok', ['payment.succeeded']);
    const first = await t.http.post(`/v2/webhooks/${ok.id}/test`).set(...bearer()).send({}).expect(202);
    expect(first.body.data).toMatchObject({ webhook_id: ok.id, event_type: 'payment.succeeded', status: 'pending', attempts: [] });
    const failing = await newWebhook('/fail', ['resource.created']);
    const second = await t.http
      .post('/v2/webhooks/test')
      .set(...bearer())
      .send({ webhook_id: failing.id, event_type: 'payment.failed' })
      .expect(202);
    expect(second.body.data.event_type).toBe('payment.failed');
    const read = (webhookId: string, deliveryId: string) =>
      t.http.get(`/v2/webhooks/${webhookId}/deliveries/${deliveryId}`).set(...bearer()).expect(200);
    await waitUntil(async () => ((await read(ok.id, first.body.data.id)).body.data.status === 'succeeded' ? true : undefined));
    const failed = await waitUntil(async () => {
      const res = await read(failing.id, second.body.data.id);
      return res.body.data.status === 'failed' ? res.body.data : undefined;
    });
    expect(failed.attempts).toHaveLength(1);
    expect(await webhook(failing.id)).toMatchObject({ status: 'enabled' });
    const sample = receiver.received.find((request) => request.headers['x-webhook-event-id'] === first.body.data.event_id);
    if (!sample) throw new Error('the sample payment.succeeded never arrived');
    expectSignedBy(ok.secret, sample);
    expect(JSON.parse(sample.body).data.object).toMatchObject({ object: 'payment', status: 'succeeded', amount: expect.any(Number) });

    const retried = await t.http
      .post(`/v2/webhooks/${failing.id}/deliveries/${second.body.data.id}/retry`)
      .set(...bearer())
      .expect(202);
    expect(retried.body.data.status).toBe('pending');
    await waitUntil(async () => ((await read(failing.id, second.body.data.id)).body.data.attempts.length === 2 ? true : undefined));
  });

  it('records a receiver that answers after 6 s as a timeout, and retries', async () => {
    const hook = await newWebhook('/slow', ['resource.created']);
    await t.http.post('/v2/resources').set(...bearer()).send({ name: 'slow' }).expect(201);
    const [row] = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    }, 30000);
    expect(row.attempts).toEqual([
      expect.objectContaining({ status_code: null, error: 'no answer within 5000 ms', response_body: null, response_headers: null }),
      expect.objectContaining({ status_code: 200, error: null }),
    ]);
  }, 40000);

  it('records a 302 as a failure and does not follow it', async () => {
    const hook = await newWebhook('/redirect', ['resource.created']);
    await t.http.post('/v2/resources').set(...bearer()).send({ name: 'redirected' }).expect(201);
    const [row] = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(row.attempts.map((attempt) => attempt.status_code)).toEqual([302, 302, 302, 302, 302]);
    expect(receiver.received.filter((request) => request.url === '/redirect')).toHaveLength(5);
    expect(receiver.received.filter((request) => request.url === '/redirected')).toHaveLength(0);
  });

  it('delivers user.updated after PATCH /users/me', async () => {
    await newWebhook('/ok', ['user.updated']);
    await t.http.patch('/v2/users/me').set(...bearer()).send({ profile: { first_name: 'Grace' } }).expect(200);
    const arrived = await waitUntil(() => {
      const found = receiver.received.find(
        (request) => request.headers['x-webhook-event-type'] === 'user.updated' && request.body.includes('Grace'),
      );
      return Promise.resolve(found);
    });
    expect(JSON.parse(arrived.body)).toMatchObject({
      type: 'user.updated',
      data: { object: { id: owner.id, profile: { first_name: 'Grace' } } },
      previous_data: { profile: { first_name: null } },
    });
  });

  it("delivers user.created, signed, to an admin's webhook when someone registers", async () => {
    const admin = await createUser(t.http, { db: t.db, role: 'admin' });
    const res = await t.http
      .post('/v2/webhooks')
      .set('Authorization', `Bearer ${admin.accessToken}`)
      .send({ url: `https://127.0.0.1:${receiver.port}/ok`, events: ['user.created'] })
      .expect(201);
    const hook: { id: string; secret: string } = res.body.data;
    const newcomer = await createUser(t.http);
    const arrived = await waitUntil(() =>
      Promise.resolve(
        receiver.received.find(
          (request) => request.headers['x-webhook-event-type'] === 'user.created' && request.body.includes(newcomer.id),
        ),
      ),
    );
    expectSignedBy(hook.secret, arrived);
    expect(JSON.parse(arrived.body)).toMatchObject({
      type: 'user.created',
      data: { object: { id: newcomer.id, email: newcomer.email } },
      previous_data: null,
    });
  });

  it('never shows the secret again: not in reads, updates, deliveries, events or delivered bodies', async () => {
    const hook = await newWebhook('/ok', ['resource.created']);
    await t.http.post('/v2/resources').set(...bearer()).send({ name: 'secretive' }).expect(201);
    const [row] = await waitUntil(async () => {
      const rows = await deliveries(hook.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    const answers = [
      await t.http.get(`/v2/webhooks/${hook.id}`).set(...bearer()).expect(200),
      await t.http.get('/v2/webhooks').set(...bearer()).expect(200),
      await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ description: 'checked' }).expect(200),
      await t.http.get(`/v2/webhooks/${hook.id}/deliveries`).set(...bearer()).expect(200),
      await t.http.get(`/v2/webhooks/${hook.id}/deliveries/${row.id}`).set(...bearer()).expect(200),
      await t.http.get('/v2/events').set(...bearer()).expect(200),
    ];
    for (const answer of answers) expect(answer.text).not.toContain(hook.secret);
    expect(receiver.received.some((request) => request.body.includes(hook.secret))).toBe(false);
  });

  it("reports the running worker in the API's readiness detail", async () => {
    const res = await t.http.get('/health/ready').expect(200);
    expect(res.body.data.checks.worker).toEqual({ status: 'up', workers: expect.any(Number) });
    expect(res.body.data.checks.worker.workers).toBeGreaterThanOrEqual(1);
  });

  it('serves Prometheus metrics on WORKER_METRICS_PORT: outcomes, latencies and queue depth', async () => {
    // The earlier tests delivered at once, retried, gave up and sent test triggers.
    const scrape = async (): Promise<string> => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      return res.text();
    };
    const value = (text: string, series: string): number => {
      const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
      return line ? Number(line.slice(series.length + 1)) : 0;
    };
    const text = await waitUntil(async () => {
      const current = await scrape();
      return value(current, 'webhook_delivery_attempts_total{outcome="failed",kind="test"}') >= 1 ? current : undefined;
    });
    expect(value(text, 'webhook_delivery_attempts_total{outcome="succeeded",kind="event"}')).toBeGreaterThanOrEqual(4);
    expect(value(text, 'webhook_delivery_attempts_total{outcome="retrying",kind="event"}')).toBeGreaterThanOrEqual(5);
    expect(value(text, 'webhook_delivery_attempts_total{outcome="failed",kind="event"}')).toBeGreaterThanOrEqual(2);
    expect(value(text, 'webhook_delivery_attempts_total{outcome="succeeded",kind="test"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'webhook_delivery_commit_to_arrival_seconds_count')).toBeGreaterThanOrEqual(4);
    expect(value(text, 'webhook_delivery_commit_to_arrival_seconds_bucket{le="+Inf"}')).toBe(
      value(text, 'webhook_delivery_commit_to_arrival_seconds_count'),
    );
    expect(value(text, 'webhook_delivery_attempt_duration_seconds_count')).toBeGreaterThanOrEqual(12);
    for (const state of ['waiting', 'active', 'delayed', 'failed']) {
      expect(text).toMatch(new RegExp(`^webhook_delivery_queue_jobs\\{state="${state}"\\} \\d+$`, 'm'));
    }
    expect(text).toContain('process_cpu_seconds_total');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  });
});
