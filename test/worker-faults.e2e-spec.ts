import type { ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { WEBHOOK_DELIVERIES_QUEUE } from '@app/queue';
import {
  createSuiteEnvironment,
  createTestApp,
  createUser,
  freePort,
  HttpsReceiver,
  PrivateRedis,
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
 * Built worker processes against faults, at shutdown, and woken by commits (docs/api.md#webhook-delivery, docs/api.md#processes): each test starts its own
 * redis-server for the workers' queues and stops only that one. The API stays on the run's
 * Redis, as a separate deployment would; the suite has its own database, so its workers relay
 * no other suite's events.
 */
describe('worker processes: faults, shutdown and wake-up', () => {
  let suite: SuiteEnvironment;
  let receiver: HttpsReceiver;
  let t: TestApp;
  const redisServers: PrivateRedis[] = [];
  const workers: RunningWorker[] = [];
  /** Handlers by path: each test answers on paths of its own. */
  const handlers = new Map<string, (request: ReceivedRequest, res: ServerResponse) => void>();

  beforeAll(async () => {
    suite = await createSuiteEnvironment('faults');
    Object.assign(process.env, suite.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startHttpsReceiver();
    receiver.respond((request, res) => {
      const handler = handlers.get(request.url);
      if (handler) handler(request, res);
      else res.writeHead(200).end('ok');
    });
    t = await createTestApp();
  }, 60000);

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.kill()));
    await Promise.all(redisServers.splice(0).map((server) => server.stop()));
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await suite?.destroy();
  });

  async function privateRedis(): Promise<PrivateRedis> {
    const server = await PrivateRedis.start();
    redisServers.push(server);
    return server;
  }

  async function worker(redis: PrivateRedis, env: NodeJS.ProcessEnv = {}): Promise<RunningWorker> {
    const started = await startBuiltWorker({
      ...suite.env,
      REDIS_URL: redis.url,
      NODE_EXTRA_CA_CERTS: receiver.certFile,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RELAY_INTERVAL_MS: '50',
      WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100,100',
      ...env,
    });
    workers.push(started);
    return started;
  }


  async function subscribe(owner: TestUser, path: string): Promise<string> {
    const res = await t.http
      .post('/v2/webhooks')
      .set('Authorization', `Bearer ${owner.accessToken}`)
      .send({ url: `https://127.0.0.1:${receiver.port}${path}`, events: ['resource.created'] })
      .expect(201);
    return res.body.data.id as string;
  }

  /** Creates `count` resources through the API, ten at a time. */
  async function createResources(owner: TestUser, count: number): Promise<void> {
    for (let first = 0; first < count; first += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, count - first) }, (_, index) =>
          t.http
            .post('/v2/resources')
            .set('Authorization', `Bearer ${owner.accessToken}`)
            .send({ name: `fault ${first + index}` })
            .expect(201),
        ),
      );
    }
  }

  const arrivals = (path: string): ReceivedRequest[] => receiver.received.filter((request) => request.url === path);
  const distinctEvents = (path: string): number =>
    new Set(arrivals(path).map((request) => request.headers['x-webhook-event-id'])).size;

  it('kill -9 in the middle of 200 deliveries, then a new worker: every event arrives at least once', async () => {
    const redis = await privateRedis();
    const owner = await createUser(t.http);
    await subscribe(owner, '/crash');
    // Slow answers and few at once (about 50 a second), so that the kill finds deliveries in
    // flight and most still queued.
    handlers.set('/crash', (_request, res) => void setTimeout(() => res.writeHead(200).end('ok'), 100));
    const slowly = { WEBHOOK_DELIVERY_CONCURRENCY: '5' };
    const first = await worker(redis, slowly);
    await createResources(owner, 200);
    await waitUntil(() => (distinctEvents('/crash') >= 40 ? true : undefined), 60000);
    await first.kill();
    expect(distinctEvents('/crash')).toBeLessThan(200);

    // Deliveries the killed worker held come back once their lock expires (BullMQ's stalled check).
    await worker(redis, slowly);
    await waitUntil(() => (distinctEvents('/crash') === 200 ? true : undefined), 150000);
  }, 240000);

  it('a worker killed while its deliveries wait on the receiver: another worker sends them again within 15 s', async () => {
    const redis = await privateRedis();
    const owner = await createUser(t.http);
    await subscribe(owner, '/held');
    // The first request of each event is left unanswered, so that every delivery is in flight,
    // its job locked by the first worker, when that worker is killed.
    const held: ServerResponse[] = [];
    const firstSeen = new Set<string>();
    handlers.set('/held', (request, res) => {
      const eventId = String(request.headers['x-webhook-event-id']);
      if (firstSeen.has(eventId)) return void res.writeHead(200).end('ok');
      firstSeen.add(eventId);
      held.push(res);
    });
    try {
      const first = await worker(redis, { WEBHOOK_DELIVERY_CONCURRENCY: '5' });
      await createResources(owner, 5);
      await waitUntil(() => (held.length === 5 ? true : undefined), 20_000);
      await first.kill();
      await worker(redis);
      // Within DELIVERY_LOCK_MS and the next stalled-job check (15 s), with slack for a busy
      // machine; BullMQ's defaults gave the jobs back only after 30-60 s.
      await waitUntil(() => (arrivals('/held').length >= 10 ? true : undefined), 25_000);
      expect(distinctEvents('/held')).toBe(5);
    } finally {
      held.forEach((res) => res.destroy());
    }
  }, 90_000);

  it('Redis stopped while resources are created: once it is back, the relay delivers all their events', async () => {
    const redis = await privateRedis();
    const owner = await createUser(t.http);
    await subscribe(owner, '/outage');
    await worker(redis);
    await createResources(owner, 1);
    await waitUntil(() => (distinctEvents('/outage') === 1 ? true : undefined), 30000);

    await redis.stop();
    await createResources(owner, 20);
    // The relay polls every 50 ms: let it find the new events while Redis is gone.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(distinctEvents('/outage')).toBe(1);
    await redis.restart();
    await waitUntil(() => (distinctEvents('/outage') === 21 ? true : undefined), 60000);
  }, 120000);

  it('Redis refusing writes (full): the relay gives its events back, and they arrive once Redis takes jobs again', async () => {
    const redis = await privateRedis();
    const owner = await createUser(t.http);
    await subscribe(owner, '/full');
    const running = await worker(redis);
    const admin = new Redis(redis.url);
    try {
      // Full, with nothing to evict: every command that would add data is refused (OOM).
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      await createResources(owner, 5);
      const refused = (): true | undefined =>
        running.logs.some((line) => (JSON.parse(line) as { msg?: string }).msg === 'outbox relay pass failed; retrying') ? true : undefined;
      await waitUntil(refused, 20_000);
      expect(distinctEvents('/full')).toBe(0);
      await admin.config('SET', 'maxmemory', '0');
      // Within the relay's next passes: events left claimed would wait for the sweeper (a minute overdue).
      await waitUntil(() => (distinctEvents('/full') === 5 ? true : undefined), 20_000);
    } finally {
      await admin.quit();
    }
  }, 90_000);

  it('two workers at once: no delivery in flight at both, each event delivered once', async () => {
    const redis = await privateRedis();
    const owner = await createUser(t.http);
    const paths = ['/pair-a', '/pair-b'];
    for (const path of paths) await subscribe(owner, path);
    const inFlight = new Set<string>();
    const overlaps: string[] = [];
    for (const path of paths) {
      handlers.set(path, (request, res) => {
        const delivery = `${path} ${String(request.headers['x-webhook-event-id'])}`;
        if (inFlight.has(delivery)) overlaps.push(delivery);
        inFlight.add(delivery);
        res.once('finish', () => inFlight.delete(delivery));
        setTimeout(() => res.writeHead(200).end('ok'), 30);
      });
    }
    const metricsPorts = [await freePort(), await freePort()];
    // Few deliveries at once each, so that neither worker can take the whole batch alone.
    await Promise.all(
      metricsPorts.map((port) => worker(redis, { WORKER_METRICS_PORT: String(port), WEBHOOK_DELIVERY_CONCURRENCY: '3' })),
    );
    await createResources(owner, 100);

    await waitUntil(() => (paths.every((path) => distinctEvents(path) === 100) ? true : undefined), 60000);
    // Every delivery recorded as succeeded: nothing is left that could still be sent again.
    await waitUntil(async () => {
      const hooks = (await t.http.get('/v2/webhooks').set('Authorization', `Bearer ${owner.accessToken}`).expect(200)).body
        .data as { id: string }[];
      for (const hook of hooks) {
        const page = await t.http
          .get(`/v2/webhooks/${hook.id}/deliveries?per_page=100`)
          .set('Authorization', `Bearer ${owner.accessToken}`)
          .expect(200);
        const rows = page.body.data as { status: string }[];
        if (rows.length < 100 || rows.some((row) => row.status !== 'succeeded')) return undefined;
      }
      return true;
    }, 30000);
    expect(overlaps).toEqual([]);
    for (const path of paths) expect(arrivals(path)).toHaveLength(100);

    // Both workers took part.
    for (const port of metricsPorts) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const line = text.split('\n').find((candidate) => candidate.startsWith('webhook_delivery_attempts_total{outcome="succeeded",kind="event"}'));
      expect(Number(line?.split(' ')[1] ?? 0)).toBeGreaterThan(0);
    }
  }, 180000);

  it('SIGTERM while a delivery is in flight at a slow receiver: it finishes, nothing is left active, exit 0', async () => {
    const redis = await privateRedis();
    const owner = await createUser(t.http);
    const hookId = await subscribe(owner, '/slow-stop');
    handlers.set('/slow-stop', (_request, res) => void setTimeout(() => res.writeHead(200).end('ok'), 2000));
    const running = await worker(redis);
    await createResources(owner, 1);
    await waitUntil(() => (arrivals('/slow-stop').length === 1 ? true : undefined), 30000);

    const code = await running.terminate();
    expect(code).toBe(0);
    const rows = (await t.http.get(`/v2/webhooks/${hookId}/deliveries`).set('Authorization', `Bearer ${owner.accessToken}`).expect(200))
      .body.data as { status: string; attempts: { status_code: number | null }[] }[];
    expect(rows).toEqual([expect.objectContaining({ status: 'succeeded', attempts: [expect.objectContaining({ status_code: 200 })] })]);
    const queueRedis = new Redis(redis.url);
    try {
      expect(await queueRedis.llen(`${suite.env.REDIS_PREFIX}:bull:${WEBHOOK_DELIVERIES_QUEUE}:active`)).toBe(0);
    } finally {
      await queueRedis.quit();
    }
  }, 60000);

  it('relays an event as its transaction commits: with a 60-second poll it still arrives within seconds', async () => {
    const redis = await privateRedis();
    const owner = await createUser(t.http);
    await subscribe(owner, '/woken');
    // The first poll runs at start; the next would be a minute later.
    await worker(redis, { WEBHOOK_RELAY_INTERVAL_MS: '60000' });
    await createResources(owner, 1);
    await waitUntil(() => (distinctEvents('/woken') === 1 ? true : undefined), 20000);
  }, 60000);
});
