import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createRmsClient, RmsApiError, RmsOAuthError, RmsUnexpectedResponseError, unwrap } from '@rms/client';

/**
 * The SDK's retries, Idempotency-Keys and error types against a stand-in for the service that
 * answers from a script: the real one does not answer 503 or drop a connection on demand.
 */
type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: unknown } | 'drop';

interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

interface ScriptedService {
  url: string;
  seen: SeenRequest[];
  /** The answers to the next requests, in order; once they run out, 200 `{ data: {} }`. */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function envelope(code: string, message: string, details?: Array<{ field: string; message: string }>): unknown {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

async function startScriptedService(): Promise<ScriptedService> {
  const seen: SeenRequest[] = [];
  let answers: ScriptedAnswer[] = [];
  const server: Server = createServer((req, res) => {
    // The e2e setup fetches the document of every 127.0.0.1 origin it sees answers from; without one it checks nothing.
    if (req.url === '/openapi.json') return void res.writeHead(404).end();
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      const answer = answers.shift() ?? { status: 200, body: { data: {} } };
      if (answer === 'drop') return void req.socket.destroy();
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      const type = typeof answer.body === 'string' ? 'text/html' : 'application/json';
      res.writeHead(answer.status, { 'Content-Type': type, ...answer.headers }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    script: (...next) => {
      answers = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('SDK retries and idempotency keys (scripted service)', () => {
  let service: ScriptedService;
  const fastBackoff = { baseDelayMs: 10 };

  beforeAll(async () => {
    service = await startScriptedService();
  });
  beforeEach(() => {
    service.seen.length = 0;
  });
  afterAll(async () => {
    await service.close();
  });

  it('sends a request answered 503 again once its Retry-After has passed', async () => {
    const rms = createRmsClient({ baseUrl: service.url, credentials: { apiKey: 'sk_test_x' } });
    service.script(
      { status: 503, headers: { 'Retry-After': '1' }, body: envelope('service_unavailable', 'down') },
      { status: 200, body: { data: { id: 'usr_1' } } },
    );
    const started = Date.now();
    const me = await unwrap(rms.api.GET('/v2/users/me'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(me.data.id).toBe('usr_1');
    expect(service.seen.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v2/users/me', 'GET /v2/users/me']);
    expect(service.seen.every((request) => request.headers['x-api-key'] === 'sk_test_x')).toBe(true);
  });

  it('gives a POST one Idempotency-Key, a random UUID, kept for its resend after a 429', async () => {
    const rms = createRmsClient({ baseUrl: service.url });
    service.script(
      { status: 429, headers: { 'Retry-After': '0' }, body: envelope('rate_limit_exceeded', 'wait') },
      { status: 201, body: { data: { id: 'res_1' } } },
    );
    await rms.api.POST('/v2/resources', { body: { name: 'retried' } });
    const [first, second] = service.seen.map((request) => request.headers['idempotency-key']);
    expect(first).toMatch(UUID);
    expect(second).toBe(first);
    service.script({ status: 201, body: { data: { id: 'res_2' } } });
    await rms.api.POST('/v2/resources', { body: { name: 'another' } });
    expect(service.seen[2].headers['idempotency-key']).toMatch(UUID);
    expect(service.seen[2].headers['idempotency-key']).not.toBe(first);
  });

  it('waits out a 409 idempotency_key_in_progress with the same key, and throws any other 409 at once', async () => {
    const rms = createRmsClient({ baseUrl: service.url });
    service.script(
      { status: 409, headers: { 'Retry-After': '1' }, body: envelope('idempotency_key_in_progress', 'still running') },
      { status: 201, headers: { 'Idempotent-Replayed': 'true' }, body: { data: { id: 'res_1' } } },
    );
    const started = Date.now();
    const created = await unwrap(rms.api.POST('/v2/resources', { body: { name: 'slow' } }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(created.data.id).toBe('res_1');
    const [first, second] = service.seen.map((request) => request.headers['idempotency-key']);
    expect(first).toMatch(UUID);
    expect(second).toBe(first);

    service.seen.length = 0;
    service.script({ status: 409, headers: { 'Retry-After': '1' }, body: envelope('conflict', 'taken') });
    await expect(unwrap(rms.api.POST('/v2/resources', { body: { name: 'taken' } }))).rejects.toMatchObject({ status: 409, code: 'conflict' });
    expect(service.seen).toHaveLength(1);
  });

  it("keeps the caller's Idempotency-Key, keys PATCH too, and never GET, PUT or DELETE", async () => {
    const rms = createRmsClient({ baseUrl: service.url });
    const path = { params: { path: { id: 'res_1' } } };
    await rms.api.POST('/v2/resources', { body: { name: 'mine' }, headers: { 'Idempotency-Key': 'order-42' } });
    await rms.api.PATCH('/v2/resources/{id}', { ...path, body: { name: 'renamed' } });
    await rms.api.GET('/v2/resources/{id}', path);
    await rms.api.PUT('/v2/resources/{id}', { ...path, body: { name: 'replaced' } });
    service.script({ status: 204 });
    await rms.api.DELETE('/v2/resources/{id}', path);
    const keys = service.seen.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toBe('order-42');
    expect(keys[1]).toMatch(UUID);
    expect(keys.slice(2)).toEqual([undefined, undefined, undefined]);
  });

  it('throws a 503 at once when its Retry-After is longer than maxDelayMs, with the request id', async () => {
    const rms = createRmsClient({ baseUrl: service.url, retry: { maxDelayMs: 5000 } });
    service.script({
      status: 503,
      headers: { 'Retry-After': '120', 'X-Request-ID': 'req_scripted' },
      body: envelope('service_unavailable', 'PostgreSQL did not answer.'),
    });
    const started = Date.now();
    const error = await rejection(rms.api.GET('/v2/resources'));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(RmsApiError);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', requestId: 'req_scripted', details: [] });
    expect((error as RmsApiError).headers.get('retry-after')).toBe('120');
    expect(service.seen).toHaveLength(1);
  });

  it('stops after maxAttempts and throws the last answer; maxAttempts 1 sends once', async () => {
    const busy = { status: 429, headers: { 'Retry-After': '0' }, body: envelope('rate_limit_exceeded', 'Try again in 0 seconds.') };
    service.script(busy, busy, busy, busy);
    const error = await rejection(createRmsClient({ baseUrl: service.url }).api.GET('/v2/resources'));
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(service.seen).toHaveLength(3);
    service.script(busy);
    await rejection(createRmsClient({ baseUrl: service.url, retry: { maxAttempts: 1 } }).api.GET('/v2/resources'));
    expect(service.seen).toHaveLength(4);
  });

  it('sends a GET and a keyed POST again after a dropped connection, backing off without Retry-After', async () => {
    const rms = createRmsClient({ baseUrl: service.url, retry: fastBackoff });
    service.script('drop', { status: 200, body: { data: [] } });
    await rms.api.GET('/v2/webhooks');
    service.script('drop', { status: 201, body: { data: { id: 'wh_1' } } });
    await rms.api.POST('/v2/webhooks', { body: { url: 'https://hooks.example.com/', events: ['resource.created'] } });
    expect(service.seen.map((request) => request.method)).toEqual(['GET', 'GET', 'POST', 'POST']);
    expect(service.seen[3].headers['idempotency-key']).toBe(service.seen[2].headers['idempotency-key']);
  });

  it('never sends a token request again after a dropped connection (it carries no key)', async () => {
    const rms = createRmsClient({
      baseUrl: service.url,
      retry: fastBackoff,
      credentials: { clientCredentials: { clientId: 'cli_1', clientSecret: 'ocs_1' } },
    });
    service.script('drop');
    // fetch's own TypeError, from Node's realm rather than the test's.
    expect(await rejection(rms.api.GET('/v2/resources'))).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(service.seen.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /oauth/token']);
  });

  it('types errors by the form of their body', async () => {
    const rms = createRmsClient({ baseUrl: service.url });
    service.script({
      status: 409,
      headers: { 'X-Request-ID': 'req_conflict' },
      body: envelope('conflict', 'The slug is taken.', [{ field: 'slug', message: 'is taken' }]),
    });
    expect(await rejection(rms.api.POST('/v2/organizations', { body: { name: 'Acme', slug: 'acme' } }))).toMatchObject({
      name: 'RmsApiError',
      status: 409,
      code: 'conflict',
      message: 'The slug is taken.',
      details: [{ field: 'slug', message: 'is taken' }],
      requestId: 'req_conflict',
    });

    service.script({ status: 401, body: { error: 'invalid_client', error_description: 'Invalid client: cannot retrieve client credentials' } });
    const oauth = await rejection(
      rms.api.POST('/oauth/token', {
        body: { grant_type: 'client_credentials' },
        bodySerializer: (body) => new URLSearchParams(body),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(oauth).toBeInstanceOf(RmsOAuthError);
    expect(oauth).toMatchObject({ status: 401, error: 'invalid_client', errorDescription: expect.stringMatching(/^Invalid client/) });

    service.script({ status: 502, body: '<html>Bad gateway</html>' });
    const unexpected = await rejection(rms.api.GET('/v2/resources'));
    expect(unexpected).toBeInstanceOf(RmsUnexpectedResponseError);
    expect(unexpected).toMatchObject({ status: 502, body: '<html>Bad gateway</html>', requestId: null });
  });
});
