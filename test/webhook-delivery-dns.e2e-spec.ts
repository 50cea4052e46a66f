import { randomBytes } from 'node:crypto';
import { HOST_RESOLUTION_DEADLINE_MS } from '@app/common';
import {
  callApi,
  createSuiteEnvironment,
  freePort,
  HttpsReceiver,
  RunningApi,
  RunningWorker,
  startBuiltApi,
  startBuiltWorker,
  startHttpsReceiver,
  SuiteEnvironment,
  waitUntil,
} from './support';
import { FakeDnsServer, startFakeDnsServer } from './webhook-dns-server';

/** The slow account's webhooks, each on a name of the black-holed domain, and its events. */
const SLOW_WEBHOOKS = 4;
const SLOW_EVENTS = 5;
/** The healthy account's events, one every EVENT_EVERY_MS while the slow account's lookups stall. */
const HEALTHY_EVENTS = 10;
const EVENT_EVERY_MS = 400;
/** On time: well under the 5-second answer limit, which a delivery stuck behind DNS would reach. */
const ON_TIME_MS = 3000;
const LOOKUPS_PER_OWNER = 2;

interface DeliveryRead {
  event_id: string;
  status: string;
  attempts: { status_code: number | null; error: string | null }[];
}

/**
 * The worker resolves webhook hosts through WEBHOOK_DNS_SERVERS, off the thread pool, within
 * HOST_RESOLUTION_DEADLINE_MS and at most WEBHOOK_DNS_LOOKUPS_PER_OWNER names at once per account
 * (docs/webhooks.md#which-urls-are-allowed), against a DNS server of the test's own that never
 * answers one domain: one account's webhooks there do not hold back another's. The built API and a
 * built worker on a database of the suite's own; private targets allowed, so that a name the test's
 * DNS points at 127.0.0.1 reaches the local receiver.
 */
describe('webhook delivery while one account resolves hosts whose DNS never answers', () => {
  let dns: FakeDnsServer;
  let suite: SuiteEnvironment;
  let receiver: HttpsReceiver;
  let api: RunningApi;
  let worker: RunningWorker;
  let metricsPort: number;

  beforeAll(async () => {
    dns = await startFakeDnsServer({ records: { 'healthy.hooks.test': ['127.0.0.1'] }, silentSuffixes: ['blackhole.test'] });
    suite = await createSuiteEnvironment('delivery_dns');
    receiver = await startHttpsReceiver({ hostnames: ['healthy.hooks.test'] });
    const env = { ...suite.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_ENABLED: 'false' };
    api = await startBuiltApi(env);
    metricsPort = await freePort();
    worker = await startBuiltWorker({
      ...env,
      NODE_EXTRA_CA_CERTS: receiver.certFile,
      WEBHOOK_DNS_SERVERS: dns.address,
      WEBHOOK_DNS_LOOKUPS_PER_OWNER: String(LOOKUPS_PER_OWNER),
      WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100,100',
      WEBHOOK_RELAY_INTERVAL_MS: '50',
      WORKER_METRICS_PORT: String(metricsPort),
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.terminate();
    await api?.stop();
    await receiver?.close();
    await suite?.destroy();
    await dns?.close();
  });

  const call = <T>(token: string | undefined, method: string, path: string, expected: number, body?: unknown): Promise<T> =>
    callApi<T>(api.url, token, method, path, expected, body);

  async function newAccount(): Promise<string> {
    const tag = randomBytes(4).toString('hex');
    const account = { email: `dns_${tag}@example.com`, username: `dns_${tag}`, password: `password-${tag}` };
    await call(undefined, 'POST', '/v2/auth/register', 201, account);
    const login = await call<{ access_token: string }>(undefined, 'POST', '/v2/auth/login', 200, { email: account.email, password: account.password });
    return login.access_token;
  }

  const newWebhook = async (token: string, url: string): Promise<string> =>
    (await call<{ id: string }>(token, 'POST', '/v2/webhooks', 201, { url, events: ['resource.created'] })).id;
  const deliveries = (token: string, webhookId: string): Promise<DeliveryRead[]> =>
    call<DeliveryRead[]>(token, 'GET', `/v2/webhooks/${webhookId}/deliveries?per_page=100`, 200);
  const slowQuestions = (): string[] => dns.questions.filter((question) => question.name.endsWith('.blackhole.test')).map((question) => question.name);

  it("keeps delivering another account's events on time, never disabling its webhook, and counts only the host's own failures", async () => {
    const slow = await newAccount();
    const slowHooks: string[] = [];
    for (let index = 0; index < SLOW_WEBHOOKS; index++) slowHooks.push(await newWebhook(slow, `https://hook-${index}.blackhole.test/in`));
    const healthy = await newAccount();
    const healthyHook = await newWebhook(healthy, `https://healthy.hooks.test:${receiver.port}/healthy`);

    for (let index = 0; index < SLOW_EVENTS; index++) await call(slow, 'POST', '/v2/resources', 201, { name: `slow ${index}` });
    // The slow account's lookups are stalling before the healthy account's events begin.
    await waitUntil(() => (new Set(slowQuestions()).size >= LOOKUPS_PER_OWNER ? true : undefined), 20_000);

    // When each healthy event arrives, taken as it arrives.
    const arrivedAt = new Map<string, number>();
    receiver.respond((request, res) => {
      if (request.url === '/healthy') {
        const id = (JSON.parse(request.body) as { data: { object: { id: string } } }).data.object.id;
        if (!arrivedAt.has(id)) arrivedAt.set(id, performance.now());
      }
      res.writeHead(200).end('ok');
    });
    const created = new Map<string, number>();
    for (let index = 0; index < HEALTHY_EVENTS; index++) {
      const resource = await call<{ id: string }>(healthy, 'POST', '/v2/resources', 201, { name: `healthy ${index}` });
      created.set(resource.id, performance.now());
      await new Promise((resolve) => setTimeout(resolve, EVENT_EVERY_MS));
    }
    await waitUntil(() => (arrivedAt.size === HEALTHY_EVENTS ? true : undefined), 20_000);
    const late = [...created].map(([id, at]) => ({ id, afterMs: Math.round((arrivedAt.get(id) ?? Infinity) - at) })).filter((entry) => entry.afterMs > ON_TIME_MS);
    expect(late).toEqual([]);

    // Each healthy delivery succeeded at its first attempt, and the webhook stays enabled.
    const healthyRows = await waitUntil(async () => {
      const rows = await deliveries(healthy, healthyHook);
      return rows.length === HEALTHY_EVENTS && rows.every((row) => row.status === 'succeeded') ? rows : undefined;
    });
    for (const row of healthyRows) expect(row.attempts).toEqual([expect.objectContaining({ status_code: 200, error: null })]);
    expect(await call<{ status: string }>(healthy, 'GET', `/v2/webhooks/${healthyHook}`, 200)).toMatchObject({ status: 'enabled' });

    // The slow account's attempts are its DNS's failures; the worker's own put-offs left no attempt.
    const expectedError = `the host's DNS failed or did not answer within ${HOST_RESOLUTION_DEADLINE_MS / 1000} seconds`;
    let slowAttempts = 0;
    for (const hook of slowHooks) {
      for (const row of await deliveries(slow, hook)) {
        slowAttempts += row.attempts.length;
        for (const attempt of row.attempts) expect(attempt).toMatchObject({ status_code: null, error: expectedError });
      }
    }
    expect(slowAttempts).toBeGreaterThan(0);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const putOff = Number(/^webhook_delivery_put_off_total (\d+)$/m.exec(metrics)?.[1] ?? 0);
    expect(putOff).toBeGreaterThan(0);
  }, 90_000);
});
