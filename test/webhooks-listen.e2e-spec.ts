import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { verifyWebhook } from '@rms/client';
import {
  createSuiteEnvironment,
  PROJECT_ROOT,
  RunningApi,
  RunningWorker,
  startBuiltApi,
  startBuiltWorker,
  SuiteEnvironment,
  waitUntil,
} from '@app/testing';
import { newCredentials, PRODUCTION_SETTINGS } from './support';

const BUILT_CLI = join(PROJECT_ROOT, 'dist/apps/api/src/cli.js');

/** `npm run cli -- webhooks listen ...`, as a child process whose output the test reads. */
class ListenCommand {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [BUILT_CLI, 'webhooks', 'listen', ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env } });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
  }

  /** The first match of `pattern` in the output, once it is there. */
  async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    return waitUntil(() => {
      if (this.child.exitCode !== null) throw new Error(`webhooks listen exited with ${this.child.exitCode}\n${this.stdout}\n${this.stderr}`);
      return pattern.exec(this.stdout) ?? undefined;
    }, 20_000);
  }

  async stop(signal: NodeJS.Signals): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    const [code] = (await exited) as [number | null];
    return code;
  }

  async exit(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const [code] = (await once(this.child, 'exit')) as [number | null];
    return code;
  }
}

/** Headers of one delivery, less those about its connection (Host, Connection), which each hop sets itself. */
function withoutConnectionHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'host' && name !== 'connection'));
}

interface Forwarded {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * `webhooks listen` (README, docs/webhooks.md#receiving-on-your-own-machine): the built CLI,
 * against a built API and worker in development mode as `npm start` runs them, forwards each
 * delivery to an endpoint of the test's own over plain http.
 */
describe('npm run cli -- webhooks listen', () => {
  let suite: SuiteEnvironment;
  let api: RunningApi;
  let worker: RunningWorker;
  let endpoint: Server;
  let endpointUrl: string;
  const forwarded: Forwarded[] = [];
  const commands: ListenCommand[] = [];

  beforeAll(async () => {
    if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: run npm run build`);
    // A database of the suite's own: its worker runs in development mode, with settings of its own.
    suite = await createSuiteEnvironment('listen');
    const development = { ...suite.env, NODE_ENV: 'development' };
    api = await startBuiltApi(development);
    worker = await startBuiltWorker({ ...development, WEBHOOK_RELAY_INTERVAL_MS: '50' });
    endpoint = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        forwarded.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(202, { 'Content-Type': 'text/plain' }).end('taken');
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hooks`;
  }, 90_000);

  afterAll(async () => {
    await Promise.all(commands.map((command) => command.stop('SIGKILL')));
    await worker?.terminate();
    await api?.stop();
    await new Promise((resolve) => endpoint?.close(resolve));
    await suite?.destroy();
  });

  const http = () => request(api.url);
  const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];

  async function newAccount(): Promise<{ email: string; password: string; token: string }> {
    const account = newCredentials();
    await http().post('/v2/auth/register').send(account).expect(201);
    const login = await http().post('/v2/auth/login').send({ email: account.email, password: account.password }).expect(200);
    return { ...account, token: login.body.data.access_token };
  }

  function listen(args: string[], env: NodeJS.ProcessEnv = {}): ListenCommand {
    const command = new ListenCommand(['--forward-to', endpointUrl, '--api-url', api.url, ...args], env);
    commands.push(command);
    return command;
  }

  it('forwards a resource.created delivery with its headers and body, says it verified, and removes the webhook on SIGINT', async () => {
    const account = await newAccount();
    const key = await http().post('/v2/api-keys').set(...bearer(account.token)).send({ name: 'listen', scopes: ['write:webhooks'] }).expect(201);
    const command = listen(['--events', 'resource.created'], { RMS_API_KEY: key.body.data.key });
    const [, webhookId] = await command.waitFor(/^Webhook (wh_\w+) receives resource\.created at http:\/\/127\.0\.0\.1:\d+\/webhooks$/m);
    const [, secret] = await command.waitFor(/its signing secret is (whsec_\S+)$/m);
    await command.waitFor(/^Ready\./m);

    const created = await http().post('/v2/resources').set(...bearer(account.token)).send({ name: 'Watched from a laptop' }).expect(201);
    const resourceId: string = created.body.data.id;

    const delivery = await waitUntil(() => forwarded.find((request) => request.body.includes(resourceId)), 20_000);
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({ type: 'resource.created', data: { object: { id: resourceId, name: 'Watched from a laptop' } }, previous_data: null });
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'ResourceManagementService-Webhooks/1.0',
      'x-webhook-event-id': event.id,
      'x-webhook-event-type': 'resource.created',
      'webhook-id': event.id,
      'webhook-signature': expect.stringMatching(/^v1,/),
    });
    // Both signatures still verify at the endpoint: the headers and the body arrived as the worker sent them.
    await expect(verifyWebhook(delivery.body, delivery.headers, secret)).resolves.toMatchObject({ id: event.id });

    const time = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`;
    await command.waitFor(new RegExp(`^${time}  resource\\.created  ${event.id}  signature verified$`, 'm'));
    await command.waitFor(new RegExp(`^${time}  ${event.id}  POST ${endpointUrl.replace(/\./g, '\\.')} answered 202 \\(\\d+ ms\\)$`, 'm'));

    // The worker's deliveries log shows the endpoint's answer, and that every header it sent was forwarded.
    const attempt = await waitUntil(async () => {
      const deliveries = await http().get(`/v2/webhooks/${webhookId}/deliveries`).set(...bearer(account.token)).expect(200);
      return deliveries.body.data.find((candidate: { event_id: string; status: string }) => candidate.event_id === event.id && candidate.status === 'succeeded')?.attempts[0];
    });
    expect(attempt).toMatchObject({ status_code: 202, response_body: 'taken' });
    expect(withoutConnectionHeaders(delivery.headers)).toEqual(withoutConnectionHeaders(attempt.request_headers));

    expect(await command.stop('SIGINT')).toBe(0);
    expect(command.stdout).toContain(`Removed webhook ${webhookId}`);
    expect((await http().get('/v2/webhooks').set(...bearer(account.token)).expect(200)).body.data).toEqual([]);
    await http().get(`/v2/webhooks/${webhookId}`).set(...bearer(account.token)).expect(404);
  }, 90_000);

  it('logs in with --email and --password, subscribes to every kind by default, and removes its webhook on SIGTERM', async () => {
    const account = await newAccount();
    const command = listen(['--email', account.email, '--password', account.password]);
    const [, webhookId, kinds] = await command.waitFor(/^Webhook (wh_\w+) receives (.+) at http:/m);
    expect(kinds.split(', ')).toEqual(['resource.created', 'resource.updated', 'resource.deleted', 'user.created', 'user.updated', 'payment.succeeded', 'payment.failed']);
    expect((await http().get(`/v2/webhooks/${webhookId}`).set(...bearer(account.token)).expect(200)).body.data).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/) });
    await command.waitFor(/^Ready\./m);
    expect(await command.stop('SIGTERM')).toBe(0);
    expect((await http().get('/v2/webhooks').set(...bearer(account.token)).expect(200)).body.data).toEqual([]);
  }, 60_000);

  it('runs beside a worker in development whose log lines name app_env and node_env', () => {
    const lines = worker.logs.map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatchObject({ service: 'worker', app_env: 'test', node_env: 'development' });
      expect(line).not.toHaveProperty('env');
    }
  });

  it('says what is wrong, without a stack, when there is no credential or the API refuses it', async () => {
    const withoutCredential = listen([], { RMS_API_KEY: '' });
    expect(await withoutCredential.exit()).toBe(1);
    expect(withoutCredential.stderr).toBe('Give --api-key (or set RMS_API_KEY), or --email and --password, of the account whose webhook this is.\n');

    const badLogin = listen(['--email', 'nobody@example.com', '--password', 'not the password']);
    expect(await badLogin.exit()).toBe(1);
    expect(badLogin.stderr).toMatch(/^The API refused to log in: 401 authentication_required: .+\n$/);
  }, 60_000);
});

/** Outside development the API refuses the local receiver: the command says why and leaves nothing behind. */
describe('webhooks listen against an API in production mode', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startBuiltApi(PRODUCTION_SETTINGS);
  }, 60_000);
  afterAll(async () => {
    await api?.stop();
  });

  it('exits 1 with the API\'s validation_error on url', async () => {
    const account = newCredentials();
    await request(api.url).post('/v2/auth/register').send(account).expect(201);
    const command = new ListenCommand(['--forward-to', 'http://127.0.0.1:9/hooks', '--api-url', api.url, '--email', account.email, '--password', account.password]);
    expect(await command.exit()).toBe(1);
    expect(command.stderr).toMatch(/^The API refused to create the webhook: 400 validation_error: .+\n {2}- url: must be an https:\/\/ URL; http:\/\/ to a loopback host is taken only .*WEBHOOK_ALLOW_LOOPBACK_HTTP=true/);
    expect(command.stdout).toBe('');
  }, 60_000);
});
