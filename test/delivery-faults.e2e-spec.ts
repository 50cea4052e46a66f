import { createHmac, randomBytes } from 'node:crypto';
import { loadConfig } from '@app/config';
import { prepareDatabase } from '@app/database';
import {
  deleteRedisKeys,
  HttpsReceiver,
  PrivatePostgres,
  ReceivedRequest,
  RunningApi,
  RunningWorker,
  startBuiltApi,
  startBuiltWorker,
  startHttpsReceiver,
  waitUntil,
} from '@app/testing';

/**
 * At-least-once webhook delivery (docs/api.md#webhook-delivery, docs/webhooks.md#repeats-and-order)
 * across two faults at once, with the built API and built workers run as operators run them: one
 * of two workers is killed with SIGKILL while a batch of deliveries is in flight, PostgreSQL
 * crashes and comes back on the same port and data, and a replacement worker starts. Every
 * committed event still arrives and every delivery ends `succeeded`. Repeats are allowed (at
 * least once, not exactly once: receivers deduplicate on the event id), so they are counted, not
 * bounded, and each is checked to carry the same event id and a valid signature. The suite runs
 * its own PostgreSQL cluster and stops only that; the queues are on the run's Redis under a
 * prefix of the suite's own.
 */
const DATABASE = 'rms_delivery_faults';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REDIS_PREFIX = `${process.env.REDIS_PREFIX}:delivery_faults`;
const EVENTS = 200;
/** The receiver answers each delivery this late, so that the kill and the crash meet deliveries in flight. */
const ANSWER_AFTER_MS = 250;
/** How long PostgreSQL stays down. */
const POSTGRES_DOWN_MS = 2000;
/**
 * Every event has arrived, and every delivery is recorded `succeeded`, within this once PostgreSQL
 * is back. The jobs the killed worker held come back through BullMQ's stalled-job check, within
 * 15 s of the kill (DELIVERY_LOCK_MS, then the next check); the rest is slack for a busy machine.
 */
const RECOVERED_WITHIN_MS = 45_000;

interface Envelope<T> {
  data: T;
}

interface CursorMeta {
  meta: { cursor: { next: string | null; has_more: boolean } };
}

interface DeliveryRead {
  event_id: string;
  status: string;
  attempts: { status_code: number | null }[];
}

interface EventRead {
  id: string;
  type: string;
  data: { object: { id: string } };
}

const header = (request: ReceivedRequest, name: string): string => String(request.headers[name]);

describe('webhook delivery across a killed worker and a PostgreSQL restart', () => {
  let postgres: PrivatePostgres | undefined;
  let receiver: HttpsReceiver | undefined;
  let api: RunningApi | undefined;
  /** How the API process ended, should it end before the suite stops it. */
  let apiEnded: string | undefined;
  const workers: RunningWorker[] = [];

  const databaseUrl = (port: number): string => `postgres://postgres@127.0.0.1:${port}/${DATABASE}`;

  /** A JSON request to the API; anything but the `expected` status fails the test, saying what came back. */
  async function call<T>(token: string | undefined, method: string, path: string, expected: number, body?: unknown): Promise<T> {
    const res = await fetch(`${api!.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    }).catch((error: unknown) => {
      throw new Error(`${method} ${path}: ${String(error)}${apiEnded ? ` (the API process had ended: ${apiEnded})` : ''}`);
    });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async function startWorker(): Promise<RunningWorker> {
    const worker = await startBuiltWorker(
      {
        DATABASE_URL: databaseUrl(postgres!.port),
        REDIS_PREFIX,
        NODE_EXTRA_CA_CERTS: receiver!.certFile,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RELAY_INTERVAL_MS: '50',
        // An attempt the faults fail (the test's own process, receiver included, is busy while pg_ctl stops and starts PostgreSQL) is retried in 100 ms, not after the production minute.
        WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100,100',
        // Few at once per worker, so that the batch takes seconds and both faults find deliveries in flight and most still queued.
        WEBHOOK_DELIVERY_CONCURRENCY: '5',
      },
      { processGroup: true },
    );
    workers.push(worker);
    return worker;
  }

  beforeAll(async () => {
    postgres = await PrivatePostgres.start();
    await prepareDatabase(loadConfig({ ...process.env, DATABASE_URL: databaseUrl(postgres.port), REDIS_PREFIX }));
    receiver = await startHttpsReceiver();
    receiver.respond((_request, res) => void setTimeout(() => res.writeHead(200).end('ok'), ANSWER_AFTER_MS));
    api = await startBuiltApi({ DATABASE_URL: databaseUrl(postgres.port), REDIS_PREFIX, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    api.process.once('exit', (code, signal) => (apiEnded = `code ${code}, signal ${signal}`));
  }, 90_000);

  afterAll(async () => {
    const steps: (() => Promise<unknown>)[] = [
      () => Promise.all(workers.splice(0).map((worker) => worker.kill())),
      async () => api?.stop(),
      async () => receiver?.close(),
      () => Promise.resolve().then(() => postgres?.destroy()),
      () => deleteRedisKeys(REDIS_URL, REDIS_PREFIX),
    ];
    const failures: unknown[] = [];
    // Every step runs whatever the ones before it did, so that one failure leaves nothing else running.
    for (const step of steps) await step().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  }, 30_000);

  it(`SIGKILL of one of two workers and a PostgreSQL restart during ${EVENTS} deliveries: every event arrives, every delivery succeeds`, async () => {
    const tag = randomBytes(4).toString('hex');
    const account = { email: `faults_${tag}@example.com`, username: `faults_${tag}`, password: `password-${tag}` };
    await call(undefined, 'POST', '/v2/auth/register', 201, account);
    const login = await call<Envelope<{ access_token: string }>>(undefined, 'POST', '/v2/auth/login', 200, {
      email: account.email,
      password: account.password,
    });
    const token = login.data.access_token;
    const hook = await call<Envelope<{ id: string; secret: string }>>(token, 'POST', '/v2/webhooks', 201, {
      url: `https://127.0.0.1:${receiver!.port}/faults`,
      events: ['resource.created'],
    });

    // The batch, ten creates at a time, committed before the workers start: all of it is still to deliver when the faults strike.
    const resourceIds: string[] = [];
    for (let first = 0; first < EVENTS; first += 10) {
      const created = await Promise.all(
        Array.from({ length: Math.min(10, EVENTS - first) }, (_, index) =>
          call<Envelope<{ id: string }>>(token, 'POST', '/v2/resources', 201, { name: `fault ${first + index}` }),
        ),
      );
      resourceIds.push(...created.map((answer) => answer.data.id));
    }
    // The events the API says were committed: one resource.created per resource.
    const events: EventRead[] = [];
    for (let cursor: string | undefined; ; ) {
      const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await call<Envelope<EventRead[]> & CursorMeta>(token, 'GET', `/v2/events?limit=100${query}`, 200);
      events.push(...page.data.filter((event) => event.type === 'resource.created'));
      if (!page.meta.cursor.has_more || !page.meta.cursor.next) break;
      cursor = page.meta.cursor.next;
    }
    expect(events.map((event) => event.data.object.id).sort()).toEqual([...resourceIds].sort());
    const eventIds = new Set(events.map((event) => event.id));
    expect(eventIds.size).toBe(EVENTS);

    const arrivals = (): ReceivedRequest[] => receiver!.received.filter((request) => request.url === '/faults');
    const arrivedIds = (): Set<string> => new Set(arrivals().map((request) => header(request, 'x-webhook-event-id')));

    await Promise.all([startWorker(), startWorker()]);
    // Deliveries are flowing from both workers; the faults strike with most of the batch still to go.
    await waitUntil(() => (arrivedIds().size >= 30 ? true : undefined), 30_000, 10);
    const [victim] = workers;
    await victim.kill();
    expect(victim.process.signalCode).toBe('SIGKILL');
    const arrivedAtKill = arrivedIds().size;
    expect(arrivedAtKill).toBeLessThan(EVENTS / 2);

    await postgres!.restart(POSTGRES_DOWN_MS);
    const backAt = Date.now();
    await startWorker();

    await waitUntil(() => (arrivedIds().size === EVENTS ? true : undefined), RECOVERED_WITHIN_MS, 100);
    const allArrivedAfterMs = Date.now() - backAt;
    // Exactly the committed events arrived: none lost, none made up.
    expect([...arrivedIds()].sort()).toEqual([...eventIds].sort());

    // One delivery per event (docs/api.md#webhook-tests), each recorded as succeeded, its last attempt answered 200.
    const listDeliveries = async (): Promise<DeliveryRead[]> => {
      const rows: DeliveryRead[] = [];
      for (let page = 1; ; page++) {
        const listed = await call<Envelope<DeliveryRead[]>>(token, 'GET', `/v2/webhooks/${hook.data.id}/deliveries?per_page=100&page=${page}`, 200);
        rows.push(...listed.data);
        if (listed.data.length < 100) return rows;
      }
    };
    const deliveries = await waitUntil(
      async () => {
        const rows = await listDeliveries();
        return rows.length === EVENTS && rows.every((row) => row.status === 'succeeded') ? rows : undefined;
      },
      Math.max(0, RECOVERED_WITHIN_MS - (Date.now() - backAt)),
      1000,
    );
    const allSucceededAfterMs = Date.now() - backAt;
    expect(new Set(deliveries.map((row) => row.event_id))).toEqual(eventIds);
    expect(deliveries.filter((row) => row.attempts.at(-1)?.status_code !== 200)).toEqual([]);

    // At least once, not exactly once: every request, repeat or not, is the event it says, signed, so that the receiver can drop a repeat.
    const received = arrivals();
    for (const request of received) {
      const body = JSON.parse(request.body) as { id: string };
      expect({ bodyId: body.id, webhookId: header(request, 'webhook-id'), signature: header(request, 'x-webhook-signature') }).toEqual({
        bodyId: header(request, 'x-webhook-event-id'),
        webhookId: header(request, 'x-webhook-event-id'),
        signature: createHmac('sha256', hook.data.secret).update(request.body).digest('hex'),
      });
    }
    // The contract sets no bound on repeats, so they are reported rather than limited.
    const duplicates = received.length - EVENTS;
    console.log(
      `delivery faults: ${EVENTS} events, ${arrivedAtKill} had arrived at the kill; after PostgreSQL was back, all arrived in ` +
        `${allArrivedAfterMs} ms and all succeeded in ${allSucceededAfterMs} ms; ${received.length} requests received, ${duplicates} of them duplicates`,
    );
  }, 150_000);
});
