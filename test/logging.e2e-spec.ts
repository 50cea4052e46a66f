import { Logger } from '@nestjs/common';
import { RunningApi, startBuiltApi, waitUntil } from '@app/testing';
import { createTestApp, createUser, TestApp } from './support';
import { HealthService } from '../apps/api/src/health/health.service';

interface LogLine {
  level: string;
  msg?: string;
  requestId?: string;
  context?: string;
  req?: { method: string; url: string; headers: Record<string, unknown> };
  res?: { statusCode: number };
  err?: { type: string; message: string; stack: string };
}

describe('logging (docs/api.md#request-id, docs/api.md#logging)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ captureLogs: true });
  });
  afterAll(async () => {
    await t.close();
  });

  const lines = (): LogLine[] =>
    t
      .logs()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as LogLine);

  const linesOf = (requestId: string): LogLine[] => lines().filter((line) => line.requestId === requestId);

  /** The request line is written when the response closes, which may follow the client's read. */
  async function requestLine(requestId: string): Promise<LogLine> {
    for (;;) {
      const line = linesOf(requestId).find((candidate) => candidate.req !== undefined);
      if (line) return line;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('writes one JSON line per request with its id, method, URL, status and duration', async () => {
    const res = await t.http.get('/v2/nope').set('X-Request-ID', 'log-test-1');
    const line = await requestLine('log-test-1');
    expect(res.headers['x-request-id']).toBe('log-test-1');
    expect(line).toMatchObject({ level: 'info', req: { method: 'GET', url: '/v2/nope' }, res: { statusCode: 404 } });
    expect(line).toHaveProperty('responseTime');
    expect(linesOf('log-test-1').filter((candidate) => candidate.req)).toHaveLength(1);
  });

  it('never writes the api_key query parameter', async () => {
    const res = await t.http.get('/v2/users/me?api_key=SECRET123&page=1');
    const requestId = res.headers['x-request-id'];
    const line = await requestLine(requestId);
    expect(res.status).toBe(401);
    expect(line.req?.url).toBe('/v2/users/me?api_key=[REDACTED]&page=1');
    expect(t.logs()).toContain(requestId);
    expect(t.logs()).not.toContain('SECRET123');
  });

  it('never writes a Bearer token', async () => {
    const user = await createUser(t.http);
    const res = await t.http.get('/v2/users/me').set('Authorization', `Bearer ${user.accessToken}`);
    const requestId = res.headers['x-request-id'];
    const line = await requestLine(requestId);
    expect(res.status).toBe(200);
    expect(line.req?.headers.authorization).toBe('[REDACTED]');
    expect(t.logs()).toContain(requestId);
    expect(t.logs()).not.toContain(user.accessToken);
    expect(t.logs()).not.toContain(user.accessToken.split('.')[2]);
    expect(t.logs()).not.toContain(user.refreshToken);
  });

  it('never writes API keys, cookies, legacy tokens or CSRF tokens', async () => {
    const sent = [
      ['X-API-Key', 'sk_test_KEYSECRET0001'],
      ['Cookie', 'rms_session=COOKIESECRET0002'],
      ['X-Auth-Token', 'LEGACYSECRET0003'],
      ['X-CSRF-Token', 'CSRFSECRET0004'],
    ];
    for (const [header, value] of sent) {
      const res = await t.http.get('/v2/users/me').set(header, value);
      const line = await requestLine(res.headers['x-request-id']);
      expect(line.req?.headers[header.toLowerCase()]).toBe('[REDACTED]');
    }
    for (const secret of ['KEYSECRET0001', 'COOKIESECRET0002', 'LEGACYSECRET0003', 'CSRFSECRET0004']) {
      expect(t.logs()).not.toContain(secret);
    }
  });

  it('never writes request bodies', async () => {
    const res = await t.http.post('/v2/auth/login').send({ email: 'nobody@example.com', password: 'BODYSECRET-0005' });
    await requestLine(res.headers['x-request-id']);
    expect(t.logs()).not.toContain('BODYSECRET');
    expect(t.logs()).not.toContain('nobody@example.com');
  });

  it("carries the request id on Nest's own log lines written inside a request", async () => {
    const health = t.app.get(HealthService);
    const spy = jest.spyOn(health, 'liveness').mockImplementation(() => {
      new Logger('Probe').warn('written inside the request');
      return { status: 'ok' };
    });
    try {
      const res = await t.http.get('/health/live');
      const line = lines().find((candidate) => candidate.msg === 'written inside the request');
      expect(line).toMatchObject({ level: 'warn', context: 'Probe', requestId: res.headers['x-request-id'] });
    } finally {
      spy.mockRestore();
    }
  });

  it('logs a 500 with the error and its stack under the request id; the response shows neither', async () => {
    const health = t.app.get(HealthService);
    const spy = jest.spyOn(health, 'liveness').mockImplementation(() => {
      throw new Error('relation "secret_table" does not exist');
    });
    try {
      const res = await t.http.get('/health/live');
      const requestId = res.headers['x-request-id'];
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: { code: 'internal_server_error', message: 'Something went wrong on our side. Quote the X-Request-ID.' },
      });
      expect(res.text).not.toContain('secret_table');
      const line = await requestLine(requestId);
      expect(line.level).toBe('error');
      expect(line.res?.statusCode).toBe(500);
      expect(line.err?.message).toBe('relation "secret_table" does not exist');
      expect(line.err?.stack).toMatch(/\n\s+at /);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('the built API writing to stdout', () => {
  let api: RunningApi;
  let stdout = '';
  beforeAll(async () => {
    api = await startBuiltApi({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, (chunk) => (stdout += chunk));
  });
  afterAll(async () => {
    await api.stop();
  });

  it('writes the line of a lone request within a second, without waiting for more lines to fill its buffer', async () => {
    const response = await fetch(`${api.url}/v2/resources`, { headers: { 'X-Request-ID': 'lone-request' } });
    expect(response.status).toBe(401);
    const line = await waitUntil(() => stdout.split('\n').find((candidate) => candidate.includes('"requestId":"lone-request"')), 1_500);
    expect(JSON.parse(line)).toMatchObject({ level: 'info', req: { method: 'GET', url: '/v2/resources' }, res: { statusCode: 401 } });
  });

  it('starts with one info line saying where the API, its docs and the console are, and no line per module or route', async () => {
    const port = new URL(api.url).port;
    const listening = await waitUntil(() => startupLines(stdout).find((line) => line.context === 'Bootstrap'), 1_500);
    expect(listening).toMatchObject({
      level: 'info',
      msg: `Listening on port ${port}: API http://localhost:${port}/v2, docs http://localhost:${port}/docs, console http://localhost:${port}/console; public URL http://localhost:3000`,
      port: Number(port),
      api_url: `http://localhost:${port}/v2`,
      docs_url: `http://localhost:${port}/docs`,
      console_url: `http://localhost:${port}/console`,
    });
    const lines = startupLines(stdout);
    expect(lines.map((line) => line.context)).toEqual(['NestFactory', 'NestApplication', 'Bootstrap']);
    // The URLs it names answer.
    for (const url of [listening.docs_url, listening.console_url]) {
      expect((await fetch(String(url).replace('localhost', '127.0.0.1'), { redirect: 'manual' })).status).toBeLessThan(400);
    }
  });
});

/** The lines written before the first request, as JSON. */
function startupLines(stdout: string): StartupLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as StartupLine)
    .filter((line) => line.req === undefined && line.context !== 'Shutdown');
}

interface StartupLine extends LogLine {
  app_env?: string;
  node_env?: string;
  env?: string;
  port?: number;
  api_url?: string;
  docs_url?: string;
  console_url?: string;
}

/** `npm start` runs in development with APP_ENV=test: each line must say both, not an `env` that reads as one or the other. */
describe('the built API in development, at debug level', () => {
  let api: RunningApi;
  let stdout = '';
  beforeAll(async () => {
    api = await startBuiltApi({ NODE_ENV: 'development', APP_ENV: 'test', LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, (chunk) => (stdout += chunk));
  });
  afterAll(async () => {
    await api.stop();
  });

  it('writes the route and module lines at debug', async () => {
    const lines = await waitUntil(() => (startupLines(stdout).some((line) => line.context === 'Bootstrap') ? startupLines(stdout) : undefined), 1_500);
    const routes = lines.filter((line) => line.context === 'RouterExplorer');
    expect(routes.length).toBeGreaterThan(50);
    expect(routes).toContainEqual(expect.objectContaining({ level: 'debug', msg: 'Mapped {/v2/resources, POST} route' }));
    for (const context of ['RouterExplorer', 'RoutesResolver', 'InstanceLoader']) {
      expect(new Set(lines.filter((line) => line.context === context).map((line) => line.level))).toEqual(new Set(['debug']));
    }
  });

  it('names app_env and node_env on every line, and no ambiguous env', async () => {
    await fetch(`${api.url}/health/live`, { headers: { 'X-Request-ID': 'environment-check' } });
    const request = await waitUntil(() => stdout.split('\n').find((line) => line.includes('"requestId":"environment-check"')), 1_500);
    const lines = [...startupLines(stdout), JSON.parse(request) as StartupLine];
    for (const line of lines) {
      expect(line).toMatchObject({ app_env: 'test', node_env: 'development' });
      expect(line).not.toHaveProperty('env');
    }
  });
});
