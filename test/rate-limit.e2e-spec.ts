import { randomInt } from 'node:crypto';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { createTestApp, createUser, TestApp, TestUser } from './support';
import { sessionCookie } from './oauth/oauth-flow';
import { AccountDirectory } from '../apps/api/src/auth/account-directory.service';

/**
 * Every test counts against fresh buckets: a new account, and a client IP of its own (sent in
 * X-Forwarded-For, trusted here for one proxy hop). A window opens with its bucket's first
 * request, so no window rolls over within a test.
 */
describe('rate limits', () => {
  let t: TestApp;
  let ipSequence = 0;

  beforeAll(async () => {
    process.env.RATE_LIMIT_ENABLED = 'true';
    process.env.TRUST_PROXY_HOPS = '1';
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A client with an IP address no other test uses. */
  function newClient(): TestAgent {
    ipSequence += 1;
    return request.agent(t.app.getHttpServer()).set('X-Forwarded-For', `10.${randomInt(256)}.${randomInt(256)}.${ipSequence}`);
  }

  function me(client: TestAgent, user: TestUser): request.Test {
    return client.get('/v2/users/me').set('Authorization', `Bearer ${user.accessToken}`);
  }

  async function inSequence(count: number, send: () => request.Test): Promise<request.Response[]> {
    const responses: request.Response[] = [];
    for (let i = 0; i < count; i += 1) responses.push(await send());
    return responses;
  }

  /** `count` requests, `concurrency` at a time. */
  async function inBatches(count: number, concurrency: number, send: () => request.Test): Promise<request.Response[]> {
    const responses: request.Response[] = [];
    for (let sent = 0; sent < count; sent += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, count - sent) }, () => send());
      responses.push(...(await Promise.all(batch)));
    }
    return responses;
  }

  function remaining(responses: request.Response[]): number[] {
    return responses.map((res) => Number(res.headers['x-ratelimit-remaining']));
  }

  /** `length` values counting down from `from`. */
  function countdown(from: number, length: number): number[] {
    return Array.from({ length }, (_, i) => from - i);
  }

  async function setPlan(user: TestUser, plan: string): Promise<void> {
    await t.app.get(DataSource).query('UPDATE users SET plan = $1 WHERE id = $2', [plan, user.id]);
    t.app.get(AccountDirectory).forget(user.id);
  }

  function expectRateLimited(res: request.Response): number {
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limit_exceeded');
    const retryAfter = Number(res.headers['retry-after']);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.body.error.message).toContain(`${retryAfter} seconds`);
    return retryAfter;
  }

  describe('per account', () => {
    it('counts a free account down from 60 in one window and answers the 61st with 429', async () => {
      const client = newClient();
      const user = await createUser(client);
      const before = Math.floor(Date.now() / 1000);

      const responses = await inSequence(61, () => me(client, user));

      const allowed = responses.slice(0, 60);
      expect(allowed.map((res) => res.status)).toEqual(new Array(60).fill(200));
      expect(remaining(allowed)).toEqual(countdown(59, 60));
      for (const res of allowed) {
        expect(res.headers['x-ratelimit-limit']).toBe('60');
        expect(res.headers['ratelimit-policy']).toBe('"free";q=60;w=60');
      }
      const resets = new Set(responses.map((res) => res.headers['x-ratelimit-reset']));
      expect(resets.size).toBe(1);
      const reset = Number([...resets][0]);
      expect(reset).toBeGreaterThan(before);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
      const [, r, seconds] = /^"free";r=(\d+);t=(\d+)$/.exec(String(allowed[0].headers.ratelimit)) ?? [];
      expect(r).toBe('59');
      expect(Number(seconds)).toBeGreaterThanOrEqual(1);
      expect(Number(seconds)).toBeLessThanOrEqual(60);

      const refused = responses[60];
      const retryAfter = expectRateLimited(refused);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers['x-ratelimit-limit']).toBe('60');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers.ratelimit).toBe(`"free";r=0;t=${retryAfter}`);
    });

    it('raises the limit within the window when the plan changes, and a pro account gets 600', async () => {
      const client = newClient();
      const user = await createUser(client);
      const free = await inSequence(61, () => me(client, user));
      expectRateLimited(free[60]);

      await setPlan(user, 'pro');
      // The 61 requests of the free plan stay counted: 62 so far, 600 allowed.
      const pro = await inBatches(600 - 61, 20, () => me(client, user));
      expect(pro.every((res) => res.status === 200)).toBe(true);
      expect(remaining(pro).sort((a, b) => b - a)).toEqual(countdown(538, 539));
      expect(pro[0].headers['x-ratelimit-limit']).toBe('600');
      expect(pro[0].headers['ratelimit-policy']).toBe('"pro";q=600;w=60');
      expect(new Set([...free, ...pro].map((res) => res.headers['x-ratelimit-reset'])).size).toBe(1);

      const refused = await me(client, user);
      expectRateLimited(refused);
      expect(refused.headers['x-ratelimit-limit']).toBe('600');
    });

    it('announces 6000 for an enterprise account', async () => {
      const client = newClient();
      const user = await createUser(client);
      await setPlan(user, 'enterprise');
      const res = await me(client, user);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('6000');
      expect(res.headers['x-ratelimit-remaining']).toBe('5999');
      expect(res.headers['ratelimit-policy']).toBe('"enterprise";q=6000;w=60');
    });

    it('shares one bucket between every credential of an account', async () => {
      const client = newClient();
      const user = await createUser(client);
      const second = await client.post('/v2/auth/login').send({ email: user.email, password: user.password }).expect(200);
      const secondToken = String(second.body.data.access_token);
      const session = await client.post('/v2/session/login').send({ email: user.email, password: user.password }).expect(200);
      const cookie = (session.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      // The session cookie goes on a client of its own, so that no request carries two credentials.
      const cookieClient = newClient();
      const oauthClient = await client
        .post('/v2/oauth-clients')
        .set('Authorization', `Bearer ${user.accessToken}`)
        .send({ name: 'own app', redirect_uris: ['https://app.example.com/cb'], scopes: ['read:users'] })
        .expect(201);
      const oauth = await client
        .post('/oauth/token')
        .type('form')
        .auth(String(oauthClient.body.data.id), String(oauthClient.body.data.client_secret))
        .send({ grant_type: 'client_credentials' })
        .expect(200);

      const responses = [
        await me(client, user),
        await client.get('/v2/users/me').set('Authorization', `Bearer ${secondToken}`),
        await cookieClient.get('/v2/users/me').set('Cookie', cookie),
        await client.get('/v2/users/me').set('Authorization', `Bearer ${String(oauth.body.access_token)}`),
        await me(client, user),
      ];
      expect(responses.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      // The client registration took the first request of the window.
      expect(remaining(responses)).toEqual([58, 57, 56, 55, 54]);
    });

    it('gives two accounts behind one IP a bucket each', async () => {
      const client = newClient();
      const first = await createUser(client);
      const second = await createUser(client);
      expect(remaining([await me(client, first), await me(client, first), await me(client, second)])).toEqual([59, 58, 59]);
    });
  });

  describe('per client IP', () => {
    it('counts unauthenticated requests against the client IP at the free limit', async () => {
      const client = newClient();
      const user = await createUser(client); // register and login: 2 requests of this IP
      const refresh = (): request.Test => client.post('/v2/auth/refresh').send({ refresh_token: 'not-a-token' });

      const responses = await inSequence(58, refresh);
      expect(responses.every((res) => res.status === 401)).toBe(true);
      expect(remaining(responses)).toEqual(countdown(57, 58));
      expect(responses[0].headers['x-ratelimit-limit']).toBe('60');
      expect(responses[0].headers['ratelimit-policy']).toBe('"free";q=60;w=60');
      expect(new Set(responses.map((res) => res.headers['x-ratelimit-reset'])).size).toBe(1);
      expectRateLimited(await refresh());

      const otherIp = await newClient().post('/v2/auth/refresh').send({ refresh_token: 'not-a-token' });
      expect(otherIp.status).toBe(401);
      expect(otherIp.headers['x-ratelimit-remaining']).toBe('59');
      const account = await me(client, user);
      expect(account.status).toBe(200);
      expect(account.headers['x-ratelimit-remaining']).toBe('59');
    });

    it('counts requests that fail authentication, and unknown routes, against the client IP', async () => {
      const client = newClient();
      const responses = [
        await client.get('/v2/users/me'),
        await client.get('/v2/users/me').set('Authorization', 'Bearer not-a-token'),
        await client.get('/v2/users/me').set('Authorization', 'Basic dXNlcjpwYXNz'),
        await client.get('/v2/no-such-route'),
      ];
      expect(responses.map((res) => res.status)).toEqual([401, 401, 401, 404]);
      expect(responses[0].body.error.code).toBe('authentication_required');
      expect(remaining(responses)).toEqual([59, 58, 57, 56]);
      for (const res of responses) {
        expect(res.headers['x-ratelimit-limit']).toBe('60');
        expect(res.headers['ratelimit-policy']).toBe('"free";q=60;w=60');
        expect(res.headers.ratelimit).toMatch(/^"free";r=\d+;t=\d+$/);
      }

      const rest = await inSequence(56, () => client.get('/v2/users/me'));
      expect(rest.every((res) => res.status === 401)).toBe(true);
      const refused = await client.get('/v2/users/me');
      expectRateLimited(refused);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    });

    it('counts bodies the parser refuses (400, 413, 415) against the client IP', async () => {
      const client = newClient();
      const oversized = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
      const responses = [
        await client.post('/v2/auth/login').set('Content-Type', 'application/json').send('{"email":'),
        await client.post('/v2/auth/login').set('Content-Type', 'application/json').send(oversized),
        await client.post('/v2/auth/login').set('Content-Type', 'text/plain').send('email=a'),
      ];
      expect(responses.map((res) => [res.status, res.body.error.code])).toEqual([
        [400, 'invalid_request'],
        [413, 'payload_too_large'],
        [415, 'unsupported_media_type'],
      ]);
      expect(remaining(responses)).toEqual([59, 58, 57]);
      for (const res of responses) expect(res.headers['ratelimit-policy']).toBe('"free";q=60;w=60');

      const rest = await inBatches(57, 8, () => client.post('/v2/auth/login').set('Content-Type', 'application/json').send(oversized));
      expect(rest.every((res) => res.status === 413)).toBe(true);
      const refused = await client.post('/v2/auth/login').set('Content-Type', 'application/json').send(oversized);
      expectRateLimited(refused);
    });

    it('leaves health, metrics and the API description unlimited', async () => {
      const client = newClient();
      for (const path of ['/health/live', '/health/ready', '/metrics', '/docs', '/openapi.json']) {
        const res = await client.get(path);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });
  });

  describe('console pages', () => {
    /** A console page fetched as a browser behind `address` would, with the session `cookie` when given. */
    const consolePage = (path: string, address: string, cookie?: string): Promise<Response> =>
      fetch(`${t.url}${path}`, { redirect: 'manual', headers: { 'X-Forwarded-For': address, ...(cookie ? { Cookie: cookie } : {}) } });

    it("counts a signed-in person's pages against their account and plan, so that others behind the same address keep theirs", async () => {
      const address = `10.${randomInt(256)}.${randomInt(256)}.${(ipSequence += 1)}`;
      const free = await createUser(newClient());
      const pro = await createUser(newClient());
      await setPlan(pro, 'pro');
      const [freeCookie, proCookie] = [await sessionCookie(newClient(), free), await sessionCookie(newClient(), pro)];

      // The account's one bucket: the API's request and the console's pages count together.
      expect((await me(newClient(), free)).headers['x-ratelimit-remaining']).toBe('59');
      const freePages = await Promise.all(Array.from({ length: 3 }, () => consolePage('/console/api-keys', address, freeCookie)));
      expect(freePages.map((page) => page.status)).toEqual([200, 200, 200]);
      expect(freePages.map((page) => page.headers.get('ratelimit-policy'))).toEqual(new Array(3).fill('"free";q=60;w=60'));
      expect(freePages.map((page) => Number(page.headers.get('x-ratelimit-remaining'))).sort((a, b) => b - a)).toEqual([58, 57, 56]);

      const proPage = await consolePage('/console/webhooks', address, proCookie);
      expect(proPage.status).toBe(200);
      expect(proPage.headers.get('ratelimit-policy')).toBe('"pro";q=600;w=60');
      expect(proPage.headers.get('ratelimit')).toMatch(/^"pro";r=599;t=\d+$/);

      // The anonymous pages of the address (the sign-in page) use up its own allowance, and only that.
      const signInPages = await Promise.all(Array.from({ length: 60 }, () => consolePage('/console/sign-in', address)));
      expect(signInPages.map((page) => page.status)).toEqual(new Array(60).fill(200));
      expect(signInPages.map((page) => page.headers.get('ratelimit-policy'))).toEqual(new Array(60).fill('"free";q=60;w=60'));
      const refused = await consolePage('/console/sign-in', address);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);

      const stillPro = await consolePage('/console/webhooks', address, proCookie);
      expect(stillPro.status).toBe(200);
      expect(stillPro.headers.get('ratelimit')).toMatch(/^"pro";r=598;t=\d+$/);
      const stillFree = await consolePage('/console/api-keys', address, freeCookie);
      expect(stillFree.status).toBe(200);
      expect(stillFree.headers.get('x-ratelimit-remaining')).toBe('55');
    });

    it("refuses a signed-in person's pages past their plan's limit with a 429 page, not anyone else's", async () => {
      const address = `10.${randomInt(256)}.${randomInt(256)}.${(ipSequence += 1)}`;
      const busy = await createUser(newClient());
      const other = await createUser(newClient());
      const [busyCookie, otherCookie] = [await sessionCookie(newClient(), busy), await sessionCookie(newClient(), other)];
      const pages = await Promise.all(Array.from({ length: 60 }, () => consolePage('/console/events', address, busyCookie)));
      expect(pages.map((page) => page.status)).toEqual(new Array(60).fill(200));
      const refused = await consolePage('/console/events', address, busyCookie);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(refused.headers.get('ratelimit')).toMatch(/^"free";r=0;t=\d+$/);
      expect(await refused.text()).toContain('Too many requests');

      const neighbour = await consolePage('/console/events', address, otherCookie);
      expect(neighbour.status).toBe(200);
      expect(neighbour.headers.get('x-ratelimit-remaining')).toBe('59');
      expect((await consolePage('/console/sign-in', address)).status).toBe(200);
    });
  });

  describe('failed logins', () => {
    const login = (client: TestAgent, email: string, password: string): request.Test =>
      client.post('/v2/auth/login').send({ email, password });

    it('answers the 11th login of an email within 15 minutes with 429 after 10 failures, even with the right password', async () => {
      const client = newClient();
      const user = await createUser(client);
      const other = await createUser(client);
      // Any spelling of the address counts against the same email.
      const failures = await inSequence(10, () => login(client, user.email.toUpperCase(), 'wrong-password-1'));
      expect(failures.map((res) => res.status)).toEqual(new Array(10).fill(401));

      const refused = await login(client, user.email, user.password);
      const retryAfter = expectRateLimited(refused);
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      const viaSession = await client.post('/v2/session/login').send({ email: user.email, password: user.password });
      expectRateLimited(viaSession);

      await login(client, other.email, other.password).expect(200);
    });

    it('clears the failures of an email on a successful login', async () => {
      const client = newClient();
      const user = await createUser(client);
      const before = await inSequence(9, () => login(client, user.email, 'wrong-password-1'));
      await login(client, user.email, user.password).expect(200);
      const after = await inSequence(10, () => login(client, user.email, 'wrong-password-1'));
      expect([...before, ...after].map((res) => res.status)).toEqual(new Array(19).fill(401));
      expectRateLimited(await login(client, user.email, user.password));
    });
  });
});

/**
 * `npm start` runs in development (NODE_ENV=development in .env): a newcomer pasting the README's
 * first requests again and again, with the console and /docs open, stays on the free plan and
 * must not meet a 429. Production keeps the contract's limits (above).
 */
describe('rate limits in development', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { NODE_ENV: 'development', RATE_LIMIT_ENABLED: 'true', TRUST_PROXY_HOPS: '1' } });
  });
  afterAll(() => t.close());

  it('gives a free account a hundred times its limit: 150 requests in a minute, none refused', async () => {
    const client = request.agent(t.app.getHttpServer()).set('X-Forwarded-For', `10.${randomInt(256)}.${randomInt(256)}.250`);
    const user = await createUser(client);
    const auth = { Authorization: `Bearer ${user.accessToken}` };
    const responses: request.Response[] = [];
    for (let round = 0; round < 50; round += 1) {
      responses.push(await client.post('/v2/resources').set(auth).send({ name: `Resource ${round}` }));
      responses.push(await client.get('/v2/resources?limit=2').set(auth));
      responses.push(await client.get('/v2/users/me').set(auth));
    }
    expect(responses.filter((res) => res.status === 429)).toEqual([]);
    expect(responses.map((res) => res.status)).toEqual(Array.from({ length: 150 }, (_, i) => (i % 3 === 0 ? 201 : 200)));
    const last = responses[149];
    expect(last.headers['x-ratelimit-limit']).toBe('6000');
    expect(last.headers['ratelimit-policy']).toBe('"free";q=6000;w=60');
    expect(Number(last.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(6000 - 150);
  });
});
