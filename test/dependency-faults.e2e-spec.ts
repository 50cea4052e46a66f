import { newCredentials, PrivatePostgres, PrivateRedis, RunningApi, startBuiltApi, waitUntil } from './support';

/**
 * A stopped or frozen dependency makes a request answer 503 service_unavailable with
 * Retry-After within about two seconds: never a 500, never a hang. Each test starts its own
 * redis-server or PostgreSQL cluster and stops only that.
 */
interface Timed {
  status: number;
  body: { error?: { code: string; message: string } };
  retryAfter: string | null;
  ms: number;
}

async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const started = Date.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15000) });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Timed['body']) : {},
    retryAfter: res.headers.get('retry-after'),
    ms: Date.now() - started,
  };
}

/** `apiLog`, when given, is the API's output, shown with a late answer to tell the service's time from the machine's. */
function expectUnavailable(answer: Timed, apiLog?: string[]): void {
  expect(answer.status).toBe(503);
  expect(answer.body.error?.code).toBe('service_unavailable');
  expect(answer.retryAfter).toMatch(/^\d+$/);
  // "About two seconds": one command or connect timeout plus the request's own work.
  if (answer.ms >= 4000 && apiLog) {
    const lastLines = apiLog.join('').trimEnd().split('\n').slice(-20).join('\n');
    throw new Error(`answered in ${answer.ms} ms; the API's last lines:\n${lastLines}`);
  }
  expect(answer.ms).toBeLessThan(4000);
}

async function registerAndLogin(api: RunningApi): Promise<string> {
  const account = newCredentials();
  const json = { 'content-type': 'application/json' };
  const registered = await fetch(`${api.url}/v2/auth/register`, { method: 'POST', headers: json, body: JSON.stringify(account) });
  expect(registered.status).toBe(201);
  const login = await fetch(`${api.url}/v2/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  expect(login.status).toBe(200);
  return ((await login.json()) as { data: { access_token: string } }).data.access_token;
}

describe('dependency faults: Redis', () => {
  let redis: PrivateRedis;
  let api: RunningApi;
  let token: string;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    api = await startBuiltApi({ REDIS_URL: redis.url });
    token = await registerAndLogin(api);
  }, 60000);
  afterAll(async () => {
    await api?.stop();
    await redis?.stop();
  });

  const me = (): Promise<Timed> => timed(`${api.url}/v2/users/me`, { headers: { authorization: `Bearer ${token}` } });

  it('frozen (SIGSTOP): 503 with Retry-After within about two seconds, then 200 once it answers again', async () => {
    expect((await me()).status).toBe(200);
    redis.freeze();
    try {
      expectUnavailable(await me());
      expectUnavailable(await timed(`${api.url}/v2/resources`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'k1' },
        body: JSON.stringify({ name: 'while frozen' }),
      }));
      const ready = await timed(`${api.url}/health/ready`);
      expect(ready.status).toBe(503);
    } finally {
      redis.thaw();
    }
    expect((await me()).status).toBe(200);
  }, 30000);

  it('stopped: 503 with Retry-After, and the service recovers when Redis is back', async () => {
    await redis.stop();
    expectUnavailable(await me());
    expectUnavailable(await timed(`${api.url}/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@example.com', password: 'a long passphrase' }),
    }));
    await redis.restart();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await me()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
  }, 30000);
});

describe('dependency faults: PostgreSQL', () => {
  let postgres: PrivatePostgres;
  let api: RunningApi;
  let token: string;
  const apiLog: string[] = [];

  beforeAll(async () => {
    postgres = await PrivatePostgres.start();
    // The client's own deadline on a statement is a second past the server's: 2 s here.
    const env = { DATABASE_URL: `${postgres.url}/rms_fault`, DATABASE_STATEMENT_TIMEOUT_MS: '1000' };
    api = await startBuiltApi(env, (chunk) => apiLog.push(chunk));
    token = await registerAndLogin(api);
  }, 90000);
  afterAll(async () => {
    await api?.stop();
    postgres?.destroy();
  });

  it('frozen (SIGSTOP): reads and writes answer 503 with Retry-After within about two seconds, then 200 once it answers again', async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await timed(`${api.url}/v2/users/me`, { headers })).status).toBe(200);
    postgres.freeze();
    try {
      expectUnavailable(await timed(`${api.url}/v2/users/me`, { headers }), apiLog);
      expectUnavailable(await timed(`${api.url}/v2/resources`, { method: 'POST', headers, body: JSON.stringify({ name: 'while frozen' }) }), apiLog);
    } finally {
      postgres.thaw();
    }
    await waitUntil(async () => ((await timed(`${api.url}/v2/users/me`, { headers })).status === 200 ? true : undefined), 10000);
    expect((await timed(`${api.url}/v2/resources`, { method: 'POST', headers, body: JSON.stringify({ name: 'after' }) })).status).toBe(201);
  }, 30000);

  it('stopped: reads and writes answer 503 with Retry-After within about two seconds', async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await timed(`${api.url}/v2/resources`, { method: 'POST', headers, body: JSON.stringify({ name: 'before' }) })).status).toBe(201);
    postgres.stop();
    expectUnavailable(await timed(`${api.url}/v2/users/me`, { headers }), apiLog);
    expectUnavailable(await timed(`${api.url}/v2/resources`, { method: 'POST', headers, body: JSON.stringify({ name: 'during' }) }), apiLog);
    expectUnavailable(await timed(`${api.url}/v2/resources`, { headers }), apiLog);
    const ready = await timed(`${api.url}/health/ready`);
    expect(ready.status).toBe(503);
  }, 30000);
});
