import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '@app/database';
import { built, createTestApp, PROJECT_ROOT, TestApp } from './support';

const GENERATED_REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

describe('platform', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('request bodies (docs/api.md#request-bodies)', () => {
    const post = (body: string, type = 'application/json') =>
      t.http.post('/v2/auth/register').set('Content-Type', type).send(body);

    it('answers 400 invalid_request to malformed JSON', async () => {
      const res = await post('{"email": "a@example.com",');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message).toBe('The request body is not valid JSON.');
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
    });

    it.each([
      ['an array', '[{"email": "a@example.com"}]'],
      ['a string', '"a@example.com"'],
      ['a number', '42'],
      ['null', 'null'],
      ['a boolean', 'true'],
    ])('answers 400 invalid_request to a body that is %s', async (_case, body) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'invalid_request', message: 'The request body must be a JSON object.' });
    });

    it('answers 413 payload_too_large to a body over 1 MiB', async () => {
      const res = await post(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });

    it('takes a body just under 1 MiB', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 20) });
      expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    });

    it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded'])(
      'answers 415 unsupported_media_type to %s',
      async (type) => {
        const res = await post('email=a@example.com', type);
        expect(res.status).toBe(415);
        expect(res.body.error.code).toBe('unsupported_media_type');
      },
    );

    it('answers 415 to a JSON body in a charset it cannot read', async () => {
      const res = await post('{}', 'application/json; charset=klingon');
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    });
  });

  describe('routing (docs/api.md#errors)', () => {
    it.each(['/v2/nope', '/v2/users/me/nope', '/nope', '/v2', '/health'])('answers 404 not_found to GET %s', async (path) => {
      const res = await t.http.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'No route matches this path.' } });
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
    });

    it.each([
      ['post', '/auth/register', '/v2/auth/register'],
      ['get', '/users/me', '/v2/users/me'],
      ['patch', '/resources/res_01JAAAAAAAAAAAAAAAAAAAAAAA', '/v2/resources/res_01JAAAAAAAAAAAAAAAAAAAAAAA'],
    ] as const)('answers %s %s, which exists under /v2, with a 404 that names %s', async (method, path, meant) => {
      const res = await t.http[method](path).send({});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        error: { code: 'not_found', message: `No route ${method.toUpperCase()} ${path}. Did you mean ${meant}?` },
      });
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
    });

    it.each([
      ['get', '/auth/register'],
      ['post', '/nope'],
      ['get', '/v2/auth/register'],
      ['get', '/oauth/nope'],
    ] as const)('answers %s %s, with no route for that method under /v2 either, with the usual 404 or 405', async (method, path) => {
      const res = await t.http[method](path);
      expect([404, 405]).toContain(res.status);
      expect(res.body.error.message).not.toContain('Did you mean');
    });

    it('answers 404 not_found to an unknown route whatever the method', async () => {
      const res = await t.http.post('/v2/nope').send({});
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });

    it('answers 405 method_not_allowed with Allow to a wrong method on a known path', async () => {
      const res = await t.http.delete('/v2/users/me');
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      const allowed = (res.headers.allow).split(', ');
      expect(allowed).toEqual(expect.arrayContaining(['GET', 'HEAD', 'PATCH']));
      expect(allowed).not.toContain('DELETE');
      expect(res.body.error.message).toContain('GET');
    });

    it.each([
      ['post', '/health/live', 'GET, HEAD'],
      ['put', '/metrics', 'GET, HEAD'],
      ['get', '/v2/auth/login', 'POST'],
    ] as const)('answers 405 to %s %s with Allow: %s', async (method, path, allow) => {
      const res = await t.http[method](path);
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      expect(res.headers.allow).toBe(allow);
    });

    it.each([
      ['put', '/v2/resources/bulk', 'PATCH, POST'],
      ['get', '/v2/resources/bulk', 'PATCH, POST'],
      ['delete', '/v2/resources/bulk', 'PATCH, POST'],
      ['patch', '/v2/webhooks/test', 'POST'],
      ['get', '/v2/webhooks/test', 'POST'],
      ['put', '/V2/Resources/Bulk/', 'PATCH, POST'],
    ] as const)('answers 405 to %s %s, a literal path that a templated one also matches, with Allow: %s', async (method, path, allow) => {
      // Before authentication, as every unknown method is: no credential is sent.
      const res = await t.http[method](path).send({});
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      expect(res.headers.allow).toBe(allow);
    });

    it('answers OPTIONS on a literal path with its own methods only', async () => {
      const res = await t.http.options('/v2/resources/bulk');
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('PATCH, POST, OPTIONS');
    });

    it('still routes the templated path for an id, and the literal path for its own methods', async () => {
      expect((await t.http.put('/v2/resources/res_01JD3Q0F6K8W2M4N6P8R0T2V4X').send({ name: 'x' })).status).toBe(401);
      expect((await t.http.post('/v2/resources/bulk').send({ resources: [{ name: 'x' }] })).status).toBe(401);
    });

    it('answers OPTIONS on a known path with 204 and Allow', async () => {
      const res = await t.http.options('/health/ready');
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    });

    it('answers HEAD like GET, without a body', async () => {
      const get = await t.http.get('/health/live');
      const head = await t.http.head('/health/live');
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.text).toBeUndefined();
    });

    it('answers HEAD on an unknown route with 404', async () => {
      const res = await t.http.head('/v2/nope');
      expect(res.status).toBe(404);
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
    });
  });

  describe('X-Request-ID (docs/api.md#request-id)', () => {
    it.each(['abc', 'req-123.ABC_def', 'a'.repeat(128), '0', 'trace.4bf92f3577b34da6a3ce929d0e0e4736'])(
      'echoes the valid client id %s',
      async (id) => {
        const res = await t.http.get('/health/live').set('X-Request-ID', id);
        expect(res.headers['x-request-id']).toBe(id);
      },
    );

    it.each([
      ['too long', 'a'.repeat(129)],
      ['with a space', 'abc def'],
      ['with a slash', 'abc/def'],
      ['with a colon', 'abc:def'],
      ['non-ASCII', 'abcé'],
      ['empty', ''],
    ])('replaces a client id that is %s with a req_ id', async (_case, id) => {
      const res = await t.http.get('/health/live').set('X-Request-ID', id);
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
    });

    it('makes a new req_ id for each request that sends none', async () => {
      const first = await t.http.get('/health/live');
      const second = await t.http.get('/health/live');
      expect(first.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
      expect(second.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
      expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    });

    it.each([
      ['a 404', () => t.http.get('/v2/nope')],
      ['a 405', () => t.http.delete('/v2/users/me')],
      ['a 401', () => t.http.get('/v2/users/me')],
      ['a 400', () => t.http.post('/v2/auth/login').set('Content-Type', 'application/json').send('{')],
      ['a 410', () => t.http.get('/v1/resources')],
    ])('echoes the client id on %s', async (_case, send) => {
      const res = await send().set('X-Request-ID', 'client-id-1');
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers['x-request-id']).toBe('client-id-1');
    });
  });

  describe('/v1 (docs/api.md#legacy-v1)', () => {
    it.each([
      ['get', '/v1'],
      ['get', '/v1/resources'],
      ['get', '/v1/resources/42?api_key=abc'],
      ['post', '/v1/auth/login'],
      ['put', '/v1/resources/42'],
      ['patch', '/v1/resources/42'],
      ['delete', '/v1/resources/42'],
      ['get', '/V1/Resources'],
    ] as const)('answers %s %s with 410 in the earlier body shape', async (method, path) => {
      const res = await t.http[method](path);
      expect(res.status).toBe(410);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body).sort()).toEqual(['message', 'status']);
      expect(res.body.status).toBe(410);
      expect(res.body.message).toContain('/v2');
      expect(res.body.message).toContain('POST /v2/auth/migrate');
    });

    it('sends Deprecation, Sunset, Link and X-Request-ID', async () => {
      const res = await t.http.get('/v1/resources');
      expect(res.headers.deprecation).toMatch(/^@\d+$/);
      const deprecatedAt = Number(res.headers.deprecation.slice(1)) * 1000;
      const sunset = Date.parse(res.headers.sunset);
      expect(res.headers.sunset).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      expect(sunset).toBeGreaterThan(deprecatedAt);
      expect(res.headers.link).toBe('</v2>; rel="successor-version"');
      expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
    });

    it('answers before authentication and body parsing run', async () => {
      const res = await t.http
        .post('/v1/resources')
        .set('X-Auth-Token', 'legacy-token')
        .set('Authorization', 'Basic dXNlcjpwYXNz')
        .set('Content-Type', 'application/json')
        .send('{ not json');
      expect(res.status).toBe(410);
      expect(res.body.status).toBe(410);
    });

    it('leaves paths that only begin with v1 alone', async () => {
      const res = await t.http.get('/v10/resources');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });
  });

  describe('health (docs/api.md#operations)', () => {
    it('answers /health/live with 200 and no credential', async () => {
      const res = await t.http.get('/health/live');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ data: { status: 'ok' } });
    });

    it('answers /health/ready with 200 when PostgreSQL and Redis answer', async () => {
      const res = await t.http.get('/health/ready');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      // Whether a worker beats under the run's prefix depends on the suites running beside this one.
      expect(res.body).toEqual({
        data: {
          status: 'ok',
          checks: { database: { status: 'up' }, redis: { status: 'up' }, worker: expect.objectContaining({ status: expect.any(String) }) },
        },
      });
    });

    it('reports no worker as down without failing readiness: events wait in the outbox', async () => {
      const prefix = process.env.REDIS_PREFIX;
      // A prefix no worker beats under.
      process.env.REDIS_PREFIX = `${prefix}_noworker`;
      const alone = await createTestApp().finally(() => {
        process.env.REDIS_PREFIX = prefix;
      });
      try {
        const res = await alone.http.get('/health/ready');
        expect(res.status).toBe(200);
        expect(res.body.data.checks).toEqual({
          database: { status: 'up' },
          redis: { status: 'up' },
          worker: { status: 'down', workers: 0, message: 'no worker beat within 30 s' },
        });
      } finally {
        await alone.close();
      }
    });

    it('ignores credentials, even broken ones', async () => {
      const res = await t.http.get('/health/ready').set('Authorization', 'Bearer not-a-token');
      expect(res.status).toBe(200);
    });
  });

  describe('metrics (docs/api.md#operations)', () => {
    it('serves Prometheus text with request counters by route pattern and process metrics', async () => {
      await t.http.get('/health/live').expect(200);
      await t.http.get('/v2/nope/res_01ABCDEFGHJKMNPQRSTVWXYZ01').expect(404);
      await t.http.get('/v1/resources/7').expect(410);
      const res = await t.http.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^http_requests_total\{method="GET",route="\/health\/live",status="200"\} \d+$/m);
      expect(res.text).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="404"\} \d+$/m);
      expect(res.text).toMatch(/^http_requests_total\{method="GET",route="\/v1\/\{\*path\}",status="410"\} \d+$/m);
      expect(res.text).toMatch(/^http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/health\/live"\} \d+$/m);
      expect(res.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/health\/live"\} \d+$/m);
      expect(res.text).toContain('process_cpu_user_seconds_total');
      expect(res.text).toContain('nodejs_eventloop_lag_seconds');
      expect(res.text).not.toContain('res_01ABCDEFGHJKMNPQRSTVWXYZ01');
    });

    it('counts each request once', async () => {
      const count = async (): Promise<number> => {
        const text = (await t.http.get('/metrics')).text;
        const line = /^http_requests_total\{method="GET",route="\/health\/ready",status="200"\} (\d+)$/m.exec(text);
        return line ? Number(line[1]) : 0;
      };
      const before = await count();
      await t.http.get('/health/ready').expect(200);
      await t.http.get('/health/ready').expect(200);
      expect(await count()).toBe(before + 2);
    });
  });
});

describe('readiness when a dependency is down (docs/api.md#operations)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 503 service_unavailable naming Redis when Redis is gone', async () => {
    t.app.get<Redis>(REDIS).disconnect();
    const res = await t.http.get('/health/ready');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.body.error.details).toEqual([{ field: 'redis', message: expect.any(String) }]);
    expect(res.headers['x-request-id']).toMatch(GENERATED_REQUEST_ID);
  });

  it('answers 503 naming both when PostgreSQL is gone too, and liveness stays 200', async () => {
    await t.app.get(DataSource).destroy();
    const ready = await t.http.get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['database', 'redis']);
    expect(JSON.stringify(ready.body)).not.toMatch(/\bat \w+ \(|ECONNREFUSED|SELECT/);
    const live = await t.http.get('/health/live');
    expect(live.status).toBe(200);
  });
});

/** A raw HTTP/1.1 connection, so that the test decides when each byte is sent. */
class RawConnection {
  readonly socket: Socket;
  received = '';
  readonly closed: Promise<void>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (this.received += chunk));
    socket.on('error', () => undefined);
    this.closed = once(socket, 'close').then(() => undefined);
  }

  static async open(port: number): Promise<RawConnection> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return new RawConnection(socket);
  }

  async until(text: string): Promise<void> {
    while (!this.received.includes(text)) await once(this.socket, 'data');
  }
}

function serverOf(t: TestApp): { server: Server; port: number } {
  const server = t.app.getHttpServer() as Server;
  return { server, port: (server.address() as AddressInfo).port };
}

function requestArrives(server: Server, url: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (req: IncomingMessage): void => {
      if (req.url !== url) return;
      server.off('request', listener);
      resolve();
    };
    server.on('request', listener);
  });
}

describe('graceful shutdown (docs/api.md#processes)', () => {
  const LOGIN_BODY = JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' });
  const LOGIN_HEAD =
    'POST /v2/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(LOGIN_BODY)}\r\n\r\n`;

  it('closes idle connections, finishes the request in flight, refuses new ones, then closes PostgreSQL and Redis', async () => {
    const t = await createTestApp();
    const { server, port } = serverOf(t);
    const dataSource = t.app.get(DataSource);
    const redis = t.app.get<Redis>(REDIS);

    const idle = await RawConnection.open(port);
    idle.socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await idle.until('{"data":{"status":"ok"}}');
    expect(idle.received).toMatch(/connection: keep-alive/i);

    const busy = await RawConnection.open(port);
    const arrived = requestArrives(server, '/v2/auth/login');
    busy.socket.write(LOGIN_HEAD + LOGIN_BODY.slice(0, 10));
    await arrived;

    const closing = t.close();
    await idle.closed;
    expect(busy.socket.destroyed).toBe(false);
    const refused = connect(port, '127.0.0.1');
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');

    busy.socket.write(LOGIN_BODY.slice(10));
    await busy.closed;
    expect(busy.received).toMatch(/^HTTP\/1\.1 401 /);
    expect(busy.received).toMatch(/connection: close/i);
    expect(busy.received).toContain('"authentication_required"');

    await closing;
    expect(dataSource.isInitialized).toBe(false);
    expect(redis.status).toBe('end');
  });

  it('cuts a request still unfinished when SHUTDOWN_GRACE_MS is over', async () => {
    const t = await createTestApp();
    const { server, port } = serverOf(t);
    const stuck = await RawConnection.open(port);
    const arrived = requestArrives(server, '/v2/auth/login');
    stuck.socket.write(LOGIN_HEAD + LOGIN_BODY.slice(0, 10));
    await arrived;

    await t.close();
    await stuck.closed;
    expect(stuck.received).toBe('');
  });
});

describe('the API process (docs/api.md#processes)', () => {
  interface Exit {
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }

  /** Runs the built API as production would; `onStdout` sees the output as it comes. */
  function runApi(env: NodeJS.ProcessEnv, onStdout?: (stdout: string, stop: () => void) => void): Promise<Exit> {
    const child = spawn(process.execPath, [built('apps/api/src/main.ts')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      onStdout?.(stdout, () => child.kill('SIGTERM'));
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    return once(child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
      stdout,
      stderr,
    }));
  }

  it('stops with exit code 1 and a message naming each bad variable, without a stack trace', async () => {
    const { code, stderr } = await runApi({ PORT: 'abc', DATABASE_URL: 'mysql://db/rms' });
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toMatch(/^ {2}- PORT /m);
    expect(stderr).toMatch(/^ {2}- DATABASE_URL /m);
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 60000);

  it('starts, logs JSON lines, and on SIGTERM drains and ends by the signal', async () => {
    let stopped = false;
    const exit = await runApi({ PORT: '0', LOG_LEVEL: 'info' }, (stdout, stop) => {
      if (stopped || !stdout.includes('Listening on port')) return;
      stopped = true;
      stop();
    });
    expect(exit.signal).toBe('SIGTERM');
    const lines = exit.stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Listening on port [1-9]\d*: API /), 'Draining HTTP connections: 0 requests in flight']),
    );
    expect(exit.stderr).toBe('');
  }, 60000);
});
