import { ApiUnderTest, connectTierApi, createTestApp, createUser, TestApp, TestUser } from './support';

/**
 * CORS for the origins of CORS_ORIGINS (docs/decisions.md), seen as a browser sees it, with
 * `fetch` sending the headers a browser would: preflights and actual requests from a listed
 * origin, from an unlisted one and from none.
 */
const LISTED = 'https://app.example.com';
const OTHER_LISTED = 'http://127.0.0.1:5173';
const UNLISTED = 'https://evil.example.com';
const FREE_LIMIT = 40;

const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-API-Key', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-ID', 'X-CSRF-Token'];
const EXPOSED_HEADERS = [
  'X-Request-ID',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'ETag',
  'Idempotent-Replayed',
  'Idempotent-Secret-Omitted',
  'Location',
];

const list = (value: string | null): string[] => (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);

/** Every `Access-Control-*` header of an answer. */
function corsHeaders(res: Response): Record<string, string> {
  return Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-')));
}

describe('CORS (CORS_ORIGINS)', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    // Rate limits on, under a Redis prefix of this suite's own: preflights must not count, and
    // a 429 must be readable by the page. Its buckets are nobody else's.
    t = await createTestApp({
      env: {
        CORS_ORIGINS: `${LISTED},${OTHER_LISTED}`,
        RATE_LIMIT_ENABLED: 'true',
        RATE_LIMIT_PLAN_LIMITS: `free=${FREE_LIMIT},pro=600,enterprise=6000`,
        REDIS_PREFIX: `${process.env.REDIS_PREFIX}:cors`,
      },
    });
    user = await createUser(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  const preflight = (path: string, origin: string, method = 'PATCH', headers = 'authorization, content-type, idempotency-key') =>
    fetch(`${t.url}${path}`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
    });

  describe('a preflight', () => {
    it('from a listed origin is 204 with the methods, the request headers, credentials, Max-Age and Vary: Origin', async () => {
      const res = await preflight('/v2/users/me', LISTED);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(list(res.headers.get('access-control-allow-methods'))).toEqual(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
      expect(list(res.headers.get('access-control-allow-headers'))).toEqual(ALLOWED_HEADERS);
      expect(res.headers.get('access-control-max-age')).toBe('7200');
      expect(list(res.headers.get('vary'))).toContain('Origin');
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    });

    it('names each listed origin alone, never the list or *', async () => {
      const res = await preflight('/v2/resources', OTHER_LISTED, 'POST');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(OTHER_LISTED);
    });

    it('is answered before authentication and never counted: more than the limit all pass, without rate-limit headers', async () => {
      const answers = await Promise.all(Array.from({ length: FREE_LIMIT + 5 }, () => preflight('/v2/users/me', LISTED)));
      expect(answers.map((res) => res.status)).toEqual(answers.map(() => 204));
      for (const res of answers) expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      // Counted in the metrics under a label of their own, not as unmatched routes.
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/^http_requests_total\{method="OPTIONS",route="cors-preflight",status="204"\} \d+/m);
    });

    it('is approved for a path with no route too, so that the page can read the 404 that follows', async () => {
      const res = await preflight('/v2/nope', LISTED, 'DELETE');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
    });

    it('from an unlisted origin gets no CORS header at all: the usual OPTIONS answer, which the browser refuses', async () => {
      const res = await preflight('/v2/users/me', UNLISTED);
      expect(res.status).toBe(204);
      expect(corsHeaders(res)).toEqual({});
      expect(res.headers.get('allow')).toContain('PATCH');
      expect(list(res.headers.get('vary'))).toContain('Origin');
    });

    it('matches origins exactly: scheme, host and port', async () => {
      for (const near of ['http://app.example.com', 'https://app.example.com:8443', 'https://sub.app.example.com', 'http://127.0.0.1:5174', 'null']) {
        expect(corsHeaders(await preflight('/v2/users/me', near))).toEqual({});
      }
    });

    it('is not an OPTIONS request without Access-Control-Request-Method, which gets Allow as ever', async () => {
      const res = await fetch(`${t.url}/v2/users/me`, { method: 'OPTIONS', headers: { Origin: LISTED } });
      expect(res.status).toBe(204);
      expect(list(res.headers.get('allow'))).toEqual(expect.arrayContaining(['GET', 'PATCH', 'OPTIONS']));
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
    });
  });

  describe('an actual request from a listed origin', () => {
    it('gets its origin, credentials, the exposed headers and Vary: Origin', async () => {
      const res = await fetch(`${t.url}/v2/users/me`, { headers: { Origin: LISTED, Authorization: `Bearer ${user.accessToken}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(list(res.headers.get('access-control-expose-headers'))).toEqual(EXPOSED_HEADERS);
      expect(list(res.headers.get('vary'))).toContain('Origin');
      // The headers it exposes are there to be read.
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    });

    it('may use the session cookie: credentials are allowed on /v2', async () => {
      const login = await fetch(`${t.url}/v2/session/login`, {
        method: 'POST',
        headers: { Origin: LISTED, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: user.password }),
      });
      expect(login.status).toBe(200);
      expect(login.headers.get('access-control-allow-credentials')).toBe('true');
      const cookie = login.headers.getSetCookie()[0].split(';')[0];
      const me = await fetch(`${t.url}/v2/users/me`, { headers: { Origin: LISTED, Cookie: cookie } });
      expect(me.status).toBe(200);
      expect(me.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(me.headers.get('access-control-allow-credentials')).toBe('true');
    });

    it.each([
      ['a 401 without a credential', () => fetch(`${t.url}/v2/users/me`, { headers: { Origin: LISTED } }), 401],
      [
        'a 400 for a body that is not JSON',
        () => fetch(`${t.url}/v2/auth/login`, { method: 'POST', headers: { Origin: LISTED, 'Content-Type': 'application/json' }, body: '{' }),
        400,
      ],
      ['a 404 for no route', () => fetch(`${t.url}/v2/nope`, { headers: { Origin: LISTED } }), 404],
    ])('can read its refusals too: %s', async (_case, send, status) => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(list(res.headers.get('access-control-expose-headers'))).toContain('X-Request-ID');
    });

    it('can read a 429 and its Retry-After', async () => {
      const limited = await createUser(t.http);
      const answers: Response[] = [];
      for (let sent = 0; sent <= FREE_LIMIT; sent++) {
        answers.push(await fetch(`${t.url}/v2/users/me`, { headers: { Origin: LISTED, Authorization: `Bearer ${limited.accessToken}` } }));
      }
      const refused = answers[FREE_LIMIT];
      expect(refused.status).toBe(429);
      expect(refused.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(list(refused.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit']));
    });
  });

  describe('an actual request from elsewhere', () => {
    it('from an unlisted origin gets no CORS header, only Vary: Origin', async () => {
      const res = await fetch(`${t.url}/v2/users/me`, { headers: { Origin: UNLISTED, Authorization: `Bearer ${user.accessToken}` } });
      expect(res.status).toBe(200);
      expect(corsHeaders(res)).toEqual({});
      expect(list(res.headers.get('vary'))).toContain('Origin');
    });

    it('without Origin (a server, curl) gets no CORS header, only Vary: Origin for the caches', async () => {
      const res = await fetch(`${t.url}/v2/users/me`, { headers: { Authorization: `Bearer ${user.accessToken}` } });
      expect(res.status).toBe(200);
      expect(corsHeaders(res)).toEqual({});
      expect(list(res.headers.get('vary'))).toContain('Origin');
    });
  });

  describe('the authorization server', () => {
    it.each(['/oauth/token', '/oauth/revoke'])('%s takes preflights and requests of listed origins, without credentials', async (path) => {
      const pre = await preflight(path, LISTED, 'POST', 'content-type, authorization');
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(pre.headers.get('access-control-allow-methods')).toBe('POST');
      expect(pre.headers.get('access-control-allow-credentials')).toBeNull();

      const res = await fetch(`${t.url}${path}`, {
        method: 'POST',
        headers: { Origin: LISTED, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', token: 'nope', client_id: 'cli_nope' }),
      });
      // The client is unknown: an error in RFC 6749 form, which the page can read.
      expect([400, 401]).toContain(res.status);
      expect(await res.json()).toEqual(expect.objectContaining({ error: expect.any(String) }));
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('serves its metadata to listed origins, without credentials', async () => {
      const res = await fetch(`${t.url}/.well-known/oauth-authorization-server`, { headers: { Origin: LISTED } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('keeps introspection for servers: no CORS header, even for a listed origin', async () => {
      expect(corsHeaders(await preflight('/oauth/introspect', LISTED, 'POST', 'content-type'))).toEqual({});
      const res = await fetch(`${t.url}/oauth/introspect`, {
        method: 'POST',
        headers: { Origin: LISTED, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: 'nope', client_id: 'cli_nope' }),
      });
      expect(corsHeaders(res)).toEqual({});
    });
  });

  it.each(['/health/live', '/metrics', '/oauth/authorize'])('leaves %s alone', async (path) => {
    const res = await fetch(`${t.url}${path}`, { headers: { Origin: LISTED } });
    expect(corsHeaders(res)).toEqual({});
    expect(list(res.headers.get('vary'))).not.toContain('Origin');
  });
});

describe('CORS without CORS_ORIGINS (the default)', () => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await connectTierApi();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lets no origin in: no CORS header on a preflight or a request, and the usual OPTIONS answer', async () => {
    const pre = await fetch(`${t.url}/v2/users/me`, {
      method: 'OPTIONS',
      headers: { Origin: LISTED, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(pre.status).toBe(204);
    expect(corsHeaders(pre)).toEqual({});
    expect(list(pre.headers.get('allow'))).toEqual(expect.arrayContaining(['GET', 'PATCH', 'OPTIONS']));
    const res = await fetch(`${t.url}/.well-known/oauth-authorization-server`, { headers: { Origin: LISTED } });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual({});
  });
});
