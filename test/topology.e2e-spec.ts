import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import {
  BuiltApiReplica,
  createSuiteEnvironment,
  freePort,
  haproxyBinary,
  HttpsReceiver,
  newCredentials,
  OPERATOR_HAPROXY_CHECKS,
  pgbouncerBinary,
  PrivateHaproxy,
  PrivatePgBouncer,
  PrivateRedisCluster,
  RunningWorker,
  startBuiltWorker,
  startHttpsReceiver,
  SuiteEnvironment,
  waitUntil,
} from './support';

const MISSING = [
  ...(pgbouncerBinary() === undefined ? ['pgbouncer'] : []),
  ...(haproxyBinary() === undefined ? ['haproxy'] : []),
];
const TITLE = 'the service past one box: two API replicas behind HAProxy, PgBouncer, a Redis Cluster and two workers';
const SKIPPED = `${TITLE} (skipped: ${MISSING.join(' and ')} not installed; scripts/services.sh installs them as root with apt-get)`;

/** The free plan's limit here: low, so that one test reaches it in a moment, and above what the suite's unauthenticated requests add up to per client IP. */
const FREE_LIMIT = 40;
/** Resources made, and so events delivered, by the webhook test. */
const DELIVERED_EVENTS = 12;
/**
 * The receiver answers each delivery this late, and each worker sends one at a time: a worker busy
 * with one leaves the next to the other, so that both take some whichever is woken first.
 */
const RECEIVER_ANSWERS_AFTER_MS = 100;
/** A revocation must reach every replica within this (docs/api.md#api-keys: "refused by every replica at once"). */
const REVOCATION_WITHIN_MS = 1000;

interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined when there is none. */
  body: unknown;
}

interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
}

/** One request to `origin`, its JSON body parsed; the OpenAPI check of test/openapi-response-check.setup.ts runs on it. */
async function send(origin: string, method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** Fails with what came instead when `answer` does not have the `expected` status. */
function expectStatus(answer: Answer, expected: number): void {
  if (answer.status !== expected) throw new Error(`expected ${expected}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
}

function dataOf<T>(answer: Answer): T {
  return (answer.body as { data: T }).data;
}

function errorOf(answer: Answer): { code: string; message: string } {
  return (answer.body as { error: { code: string; message: string } }).error;
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

interface Account {
  email: string;
  password: string;
  token: string;
}

/**
 * The topology of docs/operations.md: several API replicas behind a load balancer that checks
 * `/health/ready`, PostgreSQL behind PgBouncer in transaction mode (DATABASE_DIRECT_URL for
 * migrations and LISTEN), Redis as a three-master cluster (REDIS_CLUSTER_NODES), and several
 * workers, all processes built as operators run them. What a client sees through the load
 * balancer is one service: tokens, idempotency keys, ETags, the rate limit and revocations hold
 * whichever replica answers, and each event reaches a webhook once.
 */
(MISSING.length === 0 ? describe : describe.skip)(MISSING.length === 0 ? TITLE : SKIPPED, () => {
  let suite: SuiteEnvironment | undefined;
  let bouncer: PrivatePgBouncer | undefined;
  let cluster: PrivateRedisCluster | undefined;
  let receiver: HttpsReceiver | undefined;
  /** Checked as operators check: nothing here stops a replica, and a busy machine may slow one answer. */
  let haproxy: PrivateHaproxy | undefined;
  const replicas: BuiltApiReplica[] = [];
  const workers: RunningWorker[] = [];
  const workerMetricsPorts: number[] = [];
  let prefix = '';
  /** The suite's database itself, beside the pooler. */
  let database: Client | undefined;

  const balancer = (): string => haproxy!.url;

  beforeAll(async () => {
    suite = await createSuiteEnvironment('topology');
    prefix = suite.env.REDIS_PREFIX;
    const direct = new URL(suite.env.DATABASE_URL);
    const server = new URL(direct);
    server.pathname = '/postgres';
    [bouncer, cluster, receiver] = await Promise.all([PrivatePgBouncer.start(server.toString(), 4), PrivateRedisCluster.start(), startHttpsReceiver()]);
    database = new Client({ connectionString: suite.env.DATABASE_URL });
    await database.connect();
    receiver.respond((_request, res) => void setTimeout(() => res.writeHead(200).end('ok'), RECEIVER_ANSWERS_AFTER_MS));

    const deployment = {
      DATABASE_URL: bouncer.url(direct.pathname.slice(1)),
      DATABASE_DIRECT_URL: suite.env.DATABASE_URL,
      REDIS_CLUSTER_NODES: cluster.seeds,
      REDIS_PREFIX: prefix,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    const apiEnv = { ...deployment, RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PLAN_LIMITS: `free=${FREE_LIMIT},pro=600,enterprise=6000` };
    replicas.push(await BuiltApiReplica.onFreePort({ env: apiEnv }), await BuiltApiReplica.onFreePort({ env: apiEnv }));
    await Promise.all(replicas.map((replica) => replica.start()));
    haproxy = await PrivateHaproxy.start(replicas.map((replica) => replica.port), OPERATOR_HAPROXY_CHECKS);
    await haproxy.allInService(15_000);

    workerMetricsPorts.push(await freePort(), await freePort());
    const started = await Promise.allSettled(
      workerMetricsPorts.map((metricsPort) =>
        startBuiltWorker(
          { ...deployment, NODE_EXTRA_CA_CERTS: receiver!.certFile, WORKER_METRICS_PORT: String(metricsPort), WEBHOOK_DELIVERY_CONCURRENCY: '1' },
          { processGroup: true },
        ),
      ),
    );
    for (const outcome of started) if (outcome.status === 'fulfilled') workers.push(outcome.value);
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }, 90_000);

  afterAll(async () => {
    const steps: (() => Promise<unknown>)[] = [
      () => Promise.all(workers.splice(0).map((worker) => worker.kill())),
      () => Promise.all(replicas.splice(0).map((replica) => replica.kill())),
      async () => haproxy?.stop(),
      async () => bouncer?.stop(),
      async () => cluster?.stop(),
      async () => receiver?.close(),
      async () => database?.end(),
      async () => suite?.destroy(),
    ];
    const failures: unknown[] = [];
    // Every step runs whatever the ones before it did, so that one failure leaves nothing else running.
    for (const step of steps) await step().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  }, 30_000);

  /** Registers and logs in a new account through the load balancer. */
  async function newAccount(): Promise<Account> {
    const credentials = newCredentials();
    expectStatus(await send(balancer(), 'POST', '/v2/auth/register', { body: credentials }), 201);
    const login = await send(balancer(), 'POST', '/v2/auth/login', { body: { email: credentials.email, password: credentials.password } });
    expectStatus(login, 200);
    return { email: credentials.email, password: credentials.password, token: dataOf<{ access_token: string }>(login).access_token };
  }

  it('registers and logs in through the load balancer; every replica accepts the token', async () => {
    const account = await newAccount();
    for (const origin of [balancer(), ...replicas.map((replica) => replica.url)]) {
      const me = await send(origin, 'GET', '/v2/users/me', { headers: bearer(account.token) });
      expectStatus(me, 200);
      expect(dataOf<{ email: string }>(me).email).toBe(account.email);
    }
  });

  it('answers a create replayed under its Idempotency-Key with the same resource on each replica', async () => {
    const { token } = await newAccount();
    const create = { headers: { ...bearer(token), 'idempotency-key': `topology-${randomUUID()}` }, body: { name: 'Created once' } };
    const first = await send(balancer(), 'POST', '/v2/resources', create);
    expectStatus(first, 201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const { id } = dataOf<{ id: string }>(first);

    for (const replica of replicas) {
      const replayed = await send(replica.url, 'POST', '/v2/resources', create);
      expectStatus(replayed, 201);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(dataOf<{ id: string }>(replayed).id).toBe(id);
    }
    const listed = await send(balancer(), 'GET', '/v2/resources?limit=100', { headers: bearer(token) });
    expect(dataOf<{ id: string }[]>(listed).map((resource) => resource.id)).toEqual([id]);
  });

  it('keeps one ETag across replicas: 304 for the current one on each, 412 for a stale If-Match', async () => {
    const { token } = await newAccount();
    const created = await send(balancer(), 'POST', '/v2/resources', { headers: bearer(token), body: { name: 'Versioned' } });
    expectStatus(created, 201);
    const path = `/v2/resources/${dataOf<{ id: string }>(created).id}`;
    const [first, second] = replicas.map((replica) => replica.url);

    const read = await send(balancer(), 'GET', path, { headers: bearer(token) });
    expectStatus(read, 200);
    expect(read.headers.get('etag')).toBe('"1"');
    for (const origin of [first, second]) {
      const unchanged = await send(origin, 'GET', path, { headers: { ...bearer(token), 'if-none-match': '"1"' } });
      expect(unchanged.status).toBe(304);
      expect(unchanged.headers.get('etag')).toBe('"1"');
      expect(unchanged.body).toBeUndefined();
    }

    const updated = await send(first, 'PATCH', path, { headers: { ...bearer(token), 'if-match': '"1"' }, body: { name: 'Versioned, renamed' } });
    expectStatus(updated, 200);
    expect(updated.headers.get('etag')).toBe('"2"');
    const stale = await send(second, 'PATCH', path, { headers: { ...bearer(token), 'if-match': '"1"' }, body: { name: 'Too late' } });
    expectStatus(stale, 412);
    expect(errorOf(stale).code).toBe('precondition_failed');

    const current = await send(second, 'GET', path, { headers: { ...bearer(token), 'if-none-match': '"1"' } });
    expectStatus(current, 200);
    expect(current.headers.get('etag')).toBe('"2"');
    expect(dataOf<{ name: string }>(current).name).toBe('Versioned, renamed');
  });

  it("counts one account's requests to both replicas in one window, then refuses them on both with Retry-After", async () => {
    const { token } = await newAccount();
    const answers: Answer[] = [];
    for (let index = 0; index < FREE_LIMIT; index++) {
      answers.push(await send(replicas[index % 2].url, 'GET', '/v2/users/me', { headers: bearer(token) }));
    }
    expect(answers.map((answer) => answer.status)).toEqual(new Array<number>(FREE_LIMIT).fill(200));
    expect(answers.map((answer) => Number(answer.headers.get('x-ratelimit-limit')))).toEqual(new Array<number>(FREE_LIMIT).fill(FREE_LIMIT));
    expect(answers.map((answer) => Number(answer.headers.get('x-ratelimit-remaining')))).toEqual(
      Array.from({ length: FREE_LIMIT }, (_, index) => FREE_LIMIT - 1 - index),
    );
    expect(new Set(answers.map((answer) => answer.headers.get('x-ratelimit-reset'))).size).toBe(1);

    for (const replica of replicas) {
      const refused = await send(replica.url, 'GET', '/v2/users/me', { headers: bearer(token) });
      expectStatus(refused, 429);
      expect(errorOf(refused).code).toBe('rate_limit_exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('refuses an API key revoked through the load balancer on both replicas, though both hold it as verified', async () => {
    const { token } = await newAccount();
    const created = await send(balancer(), 'POST', '/v2/api-keys', { headers: bearer(token), body: { name: 'topology', scopes: ['read:users'] } });
    expectStatus(created, 201);
    const { id, key } = dataOf<{ id: string; key: string }>(created);
    // Each replica caches verified keys only while its subscription to revocations is live.
    const channel = `${prefix}:api-keys:revoked`;
    const subscribers = await Promise.all(cluster!.ports.map(async (port) => Number((await cluster!.cli(port, 'pubsub', 'numsub', channel)).split('\n').pop())));
    expect(subscribers.reduce((sum, count) => sum + count, 0)).toBe(replicas.length);
    for (const replica of replicas) expectStatus(await send(replica.url, 'GET', '/v2/users/me', { headers: { 'x-api-key': key } }), 200);
    // Hidden from PostgreSQL, the key still passes on both: each serves it from memory now.
    await database!.query("UPDATE api_keys SET secret_hash = 'hidden:' || secret_hash WHERE id = $1", [id]);
    for (const replica of replicas) expectStatus(await send(replica.url, 'GET', '/v2/users/me', { headers: { 'x-api-key': key } }), 200);
    await database!.query("UPDATE api_keys SET secret_hash = substr(secret_hash, 8) WHERE id = $1", [id]);

    expect((await send(balancer(), 'DELETE', `/v2/api-keys/${id}`, { headers: bearer(token) })).status).toBe(204);
    const revokedAt = Date.now();
    for (const replica of replicas) {
      const refused = await waitUntil(
        async () => {
          const answer = await send(replica.url, 'GET', '/v2/users/me', { headers: { 'x-api-key': key } });
          return answer.status === 200 ? undefined : answer;
        },
        REVOCATION_WITHIN_MS,
        25,
      );
      expectStatus(refused, 401);
      expect(errorOf(refused).message).toMatch(/revoked/);
    }
    expect(Date.now() - revokedAt).toBeLessThan(REVOCATION_WITHIN_MS);
  });

  it('refuses a logged-out access token on both replicas at once', async () => {
    const { token } = await newAccount();
    for (const replica of replicas) expectStatus(await send(replica.url, 'GET', '/v2/users/me', { headers: bearer(token) }), 200);

    expect((await send(balancer(), 'POST', '/v2/auth/logout', { headers: bearer(token) })).status).toBe(204);
    for (const replica of replicas) {
      const refused = await send(replica.url, 'GET', '/v2/users/me', { headers: bearer(token) });
      expectStatus(refused, 401);
      expect(errorOf(refused).code).toBe('authentication_required');
      expect(errorOf(refused).message).toMatch(/revoked/);
    }
  });

  it('serves a session logged in through the load balancer on both replicas, and ends it on both', async () => {
    const account = await newAccount();
    const login = await send(balancer(), 'POST', '/v2/session/login', { body: { email: account.email, password: account.password } });
    expectStatus(login, 200);
    const [setCookie] = login.headers.getSetCookie();
    const session = { cookie: setCookie.split(';')[0] };
    const { csrf_token: csrfToken } = dataOf<{ csrf_token: string }>(login);
    for (const replica of replicas) {
      const me = await send(replica.url, 'GET', '/v2/users/me', { headers: session });
      expectStatus(me, 200);
      expect(dataOf<{ email: string }>(me).email).toBe(account.email);
    }
    // A write with the cookie carries the CSRF token on either replica.
    const created = await send(replicas[1].url, 'POST', '/v2/resources', { headers: { ...session, 'x-csrf-token': csrfToken }, body: { name: 'By session' } });
    expectStatus(created, 201);

    expect((await send(replicas[0].url, 'POST', '/v2/session/logout', { headers: { ...session, 'x-csrf-token': csrfToken } })).status).toBe(204);
    for (const replica of replicas) {
      const refused = await send(replica.url, 'GET', '/v2/users/me', { headers: session });
      expectStatus(refused, 401);
      expect(errorOf(refused).message).toMatch(/session has ended/);
    }
  });

  it(`delivers each of ${DELIVERED_EVENTS} events to a webhook once, with two workers taking the deliveries`, async () => {
    const { token } = await newAccount();
    const hook = await send(balancer(), 'POST', '/v2/webhooks', {
      headers: bearer(token),
      body: { url: `https://127.0.0.1:${receiver!.port}/topology`, events: ['resource.created'] },
    });
    expectStatus(hook, 201);
    const webhookId = dataOf<{ id: string }>(hook).id;

    const resourceIds: string[] = [];
    for (let first = 0; first < DELIVERED_EVENTS; first += 4) {
      const created = await Promise.all(
        [0, 1, 2, 3].map((offset) => send(balancer(), 'POST', '/v2/resources', { headers: bearer(token), body: { name: `Delivered ${first + offset}` } })),
      );
      for (const answer of created) expectStatus(answer, 201);
      resourceIds.push(...created.map((answer) => dataOf<{ id: string }>(answer).id));
    }

    const arrivals = () => receiver!.received.filter((request) => request.url === '/topology');
    const eventIdsArrived = () => arrivals().map((request) => String(request.headers['x-webhook-event-id']));
    await waitUntil(() => (new Set(eventIdsArrived()).size >= DELIVERED_EVENTS ? true : undefined), 30_000, 50);
    // The contract is at least once (docs/api.md#webhook-delivery): a repeat follows a fault. With
    // none here, a repeat would be two relays or two workers taking one event; they get the time to.
    await delay(1500);

    const arrived = eventIdsArrived();
    expect(arrived.length).toBe(DELIVERED_EVENTS);
    expect(new Set(arrived).size).toBe(DELIVERED_EVENTS);
    const events = arrivals().map((request) => JSON.parse(request.body) as { id: string; data: { object: { id: string } } });
    expect(events.map((event) => event.data.object.id).sort()).toEqual([...resourceIds].sort());
    expect(events.map((event) => event.id).sort()).toEqual([...arrived].sort());

    // The deliveries log agrees: one delivery per event, succeeded at its first attempt.
    const deliveries = await waitUntil(async () => {
      const listed = dataOf<{ event_id: string; status: string; attempts: unknown[] }[]>(
        await send(balancer(), 'GET', `/v2/webhooks/${webhookId}/deliveries?per_page=100`, { headers: bearer(token) }),
      );
      return listed.every((delivery) => delivery.status === 'succeeded') ? listed : undefined;
    }, 10_000);
    expect(deliveries.map((delivery) => delivery.event_id).sort()).toEqual([...arrived].sort());
    expect(deliveries.map((delivery) => delivery.attempts.length)).toEqual(new Array<number>(DELIVERED_EVENTS).fill(1));

    // Each worker counts its own attempts: together they made exactly one per event, and both took some.
    const succeededByWorker = await Promise.all(workerMetricsPorts.map((port) => succeededEventAttempts(port)));
    expect(succeededByWorker.reduce((sum, count) => sum + count, 0)).toBe(DELIVERED_EVENTS);
    expect(succeededByWorker.every((count) => count > 0)).toBe(true);
  });

  it('reaches PostgreSQL through PgBouncer, but for each worker\'s LISTEN, which holds a connection of its own', async () => {
    const pooled = await bouncer!.serverPids();
    expect(pooled.length).toBeGreaterThan(0);
    const databaseName = new URL(suite!.env.DATABASE_URL).pathname.slice(1);
    const { rows: listening } = await database!.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN events_committed'",
      [databaseName],
    );
    expect(listening.length).toBe(workers.length);
    expect(listening.filter((row) => pooled.includes(row.pid))).toEqual([]);
  });

  it("spreads the service's keys over the cluster's nodes, and keeps BullMQ's keys in one hash-tagged slot", async () => {
    const serviceKeys = await cluster!.keysByNode(`${prefix}:*`);
    const nodesHoldingServiceKeys = [...serviceKeys.values()].filter((keys) => keys.length > 0);
    expect(nodesHoldingServiceKeys.length).toBeGreaterThan(1);
    // Nothing of BullMQ's outside the hash tag: an untagged key would be another slot from its queue's scripts.
    expect([...serviceKeys.values()].flat().filter((key) => key.startsWith(`${prefix}:bull:`))).toEqual([]);

    const queueKeys = await cluster!.keysByNode(`{${prefix}:bull}:*`);
    const nodesHoldingQueueKeys = [...queueKeys.entries()].filter(([, keys]) => keys.length > 0);
    expect(nodesHoldingQueueKeys.length).toBe(1);
    const [[queueNode, keys]] = nodesHoldingQueueKeys;
    expect(keys).toEqual(expect.arrayContaining([`{${prefix}:bull}:webhook-deliveries:meta`]));
    const slots = new Set(await Promise.all(keys.map((key) => cluster!.cli(queueNode, 'cluster', 'keyslot', key))));
    expect(slots.size).toBe(1);
  });
});

/** `webhook_delivery_attempts_total{outcome="succeeded",kind="event"}` of the worker whose metrics listen on `port`. */
async function succeededEventAttempts(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((candidate) => /^webhook_delivery_attempts_total\{(?=.*outcome="succeeded")(?=.*kind="event")/.test(candidate));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}
