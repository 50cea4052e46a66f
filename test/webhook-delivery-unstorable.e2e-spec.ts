import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import {
  callApi,
  createSuiteEnvironment,
  HttpsReceiver,
  ReceivedRequest,
  RunningApi,
  RunningWorker,
  startBuiltApi,
  startBuiltWorker,
  startHttpsReceiver,
  SuiteEnvironment,
  waitUntil,
} from './support';

/** Events per account; the two accounts' deliveries run side by side, so they share the worker's writes. */
const EVENTS = 20;

interface DeliveryRead {
  event_id: string;
  status: string;
  attempts: { status_code: number | null; error: string | null; response_body: string | null }[];
}

/**
 * A receiver's answer that PostgreSQL cannot store as sent (docs/webhooks.md#the-deliveries-log-and-manual-retry):
 * its attempts are kept with the offending characters replaced, and the deliveries of every
 * other webhook recorded in the same statements go on as usual. The built API and a built worker
 * on a database of the suite's own, read over HTTP.
 */
describe('webhook answers PostgreSQL cannot store as sent', () => {
  let suite: SuiteEnvironment;
  let receiver: HttpsReceiver;
  let api: RunningApi;
  let worker: RunningWorker;

  beforeAll(async () => {
    suite = await createSuiteEnvironment('unstorable');
    receiver = await startHttpsReceiver();
    const env = { ...suite.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT_ENABLED: 'false' };
    api = await startBuiltApi(env);
    worker = await startBuiltWorker({
      ...env,
      NODE_EXTRA_CA_CERTS: receiver.certFile,
      WEBHOOK_RETRY_SCHEDULE_MS: '0,20,20,20,20',
      WEBHOOK_RELAY_INTERVAL_MS: '50',
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.terminate();
    await api?.stop();
    await receiver?.close();
    await suite?.destroy();
  });

  const call = <T>(token: string | undefined, method: string, path: string, expected: number, body?: unknown): Promise<T> =>
    callApi<T>(api.url, token, method, path, expected, body);

  /** A new account with a webhook on `path` for resource.created; answers its token and webhook id. */
  async function accountWithWebhook(path: string): Promise<{ token: string; webhookId: string }> {
    const tag = randomBytes(4).toString('hex');
    const account = { email: `unstorable_${tag}@example.com`, username: `unstorable_${tag}`, password: `password-${tag}` };
    await call(undefined, 'POST', '/v2/auth/register', 201, account);
    const { access_token: token } = await call<{ access_token: string }>(undefined, 'POST', '/v2/auth/login', 200, {
      email: account.email,
      password: account.password,
    });
    const hook = await call<{ id: string }>(token, 'POST', '/v2/webhooks', 201, {
      url: `https://127.0.0.1:${receiver.port}${path}`,
      events: ['resource.created'],
    });
    return { token, webhookId: hook.id };
  }

  const deliveries = (token: string, webhookId: string): Promise<DeliveryRead[]> =>
    call<DeliveryRead[]>(token, 'GET', `/v2/webhooks/${webhookId}/deliveries?per_page=100`, 200);
  const eventId = (request: ReceivedRequest): string => String(request.headers['x-webhook-event-id']);

  it.each([
    ['a NUL byte', 'nul', Buffer.from('ok\u0000'), 'ok\uFFFD'],
    ['a lone UTF-16 surrogate in JSON', 'surrogate', Buffer.from('{"a":"\\ud800"}'), '{"a":"\\ud800"}'],
  ])('keeps attempts answered with %s, and the other account gets each event once', async (_case, name, answer, stored) => {
    const oddPath = `/odd-${name}`;
    const okPath = `/ok-${name}`;
    receiver.respond((request, res) => {
      if (request.url === oddPath) res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      else res.writeHead(200).end('ok');
    });
    const odd = await accountWithWebhook(oddPath);
    const healthy = await accountWithWebhook(okPath);

    // Both accounts' events commit side by side, so that their deliveries are recorded in the same turns.
    for (let first = 0; first < EVENTS; first += 5) {
      await Promise.all(
        Array.from({ length: 5 }, (_, index) => [
          call(odd.token, 'POST', '/v2/resources', 201, { name: `odd ${first + index}` }),
          call(healthy.token, 'POST', '/v2/resources', 201, { name: `healthy ${first + index}` }),
        ]).flat(),
      );
    }

    const settled = async (account: { token: string; webhookId: string }): Promise<DeliveryRead[]> =>
      waitUntil(async () => {
        const rows = await deliveries(account.token, account.webhookId);
        return rows.length === EVENTS && rows.every((row) => row.status !== 'pending') ? rows : undefined;
      }, 30_000, 200);
    const [oddRows, healthyRows] = await Promise.all([settled(odd), settled(healthy)]);

    // The odd receiver's attempts are kept, its answer stored with what PostgreSQL refuses replaced.
    for (const row of oddRows) {
      expect(row).toMatchObject({ status: 'succeeded', attempts: [{ status_code: 200, error: null, response_body: stored }] });
    }
    // The healthy receiver's deliveries went as if nothing had happened: one attempt each, and each event arrived once.
    for (const row of healthyRows) expect(row).toMatchObject({ status: 'succeeded', attempts: [{ status_code: 200, response_body: 'ok' }] });
    const arrived = receiver.received.filter((request) => request.url === okPath).map(eventId);
    expect(arrived.sort()).toEqual(healthyRows.map((row) => row.event_id).sort());
    expect(new Set(receiver.received.filter((request) => request.url === oddPath).map(eventId)).size).toBe(EVENTS);
  }, 60_000);

  it('counts an answer PostgreSQL still refuses as a failed attempt without the answer, logs it, and fails no other delivery', async () => {
    // A trigger of this suite's database refuses one answer as data (SQLSTATE 22023), as PostgreSQL refuses a value it cannot store.
    const db = new Client({ connectionString: suite.env.DATABASE_URL });
    await db.connect();
    await db.query(`
      CREATE FUNCTION refuse_marked_answers() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.attempts @> '[{"response_body": "refuse me"}]' THEN
          RAISE EXCEPTION 'this answer is refused' USING ERRCODE = '22023';
        END IF;
        RETURN NEW;
      END $$`);
    await db.query('CREATE TRIGGER refuse_marked_answers BEFORE UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION refuse_marked_answers()');
    await db.end();
    receiver.respond((request, res) => void res.writeHead(200).end(request.url === '/refused' ? 'refuse me' : 'ok'));
    const refused = await accountWithWebhook('/refused');
    const healthy = await accountWithWebhook('/ok-beside-refused');
    for (let first = 0; first < EVENTS; first += 5) {
      await Promise.all(
        Array.from({ length: 5 }, (_, index) => [
          call(refused.token, 'POST', '/v2/resources', 201, { name: `refused ${first + index}` }),
          call(healthy.token, 'POST', '/v2/resources', 201, { name: `beside ${first + index}` }),
        ]).flat(),
      );
    }

    // Five failed attempts in a row disable the webhook, as any other failure would.
    await waitUntil(async () => {
      const hook = await call<{ status: string }>(refused.token, 'GET', `/v2/webhooks/${refused.webhookId}`, 200);
      return hook.status === 'disabled' ? true : undefined;
    }, 30_000, 200);
    // The webhook is disabled before its last attempt is recorded (whoever sees the delivery failed
    // sees the webhook disabled), so the failed delivery is waited for in its turn.
    const refusedRows = await waitUntil(async () => {
      const rows = await deliveries(refused.token, refused.webhookId);
      return rows.some((row) => row.status === 'failed' && row.attempts.length === 5) ? rows : undefined;
    }, 30_000, 200);
    expect(refusedRows.some((row) => row.status === 'failed' && row.attempts.length === 5)).toBe(true);
    for (const row of refusedRows) {
      expect(row.attempts.length).toBeGreaterThan(0);
      for (const attempt of row.attempts) {
        expect(attempt).toEqual(
          expect.objectContaining({ status_code: 200, error: 'the receiver answered, but its answer could not be stored', response_body: null }),
        );
      }
    }
    const logged = worker.logs.map((line) => JSON.parse(line) as { msg?: string; deliveryId?: string });
    expect(logged.filter((line) => line.msg === 'attempt could not be stored; recorded as failed without the answer').length).toBeGreaterThanOrEqual(EVENTS);

    const healthyRows = await waitUntil(async () => {
      const rows = await deliveries(healthy.token, healthy.webhookId);
      return rows.length === EVENTS && rows.every((row) => row.status === 'succeeded') ? rows : undefined;
    }, 30_000, 200);
    for (const row of healthyRows) expect(row.attempts).toHaveLength(1);
    const arrived = receiver.received.filter((request) => request.url === '/ok-beside-refused').map(eventId);
    expect(arrived.sort()).toEqual(healthyRows.map((row) => row.event_id).sort());
  }, 60_000);
});
