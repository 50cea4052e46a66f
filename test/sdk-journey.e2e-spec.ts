import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRmsClient, RmsClient, unwrap, verifyWebhook, WebhookVerificationError } from '@rms/client';
import {
  createSuiteEnvironment,
  createTestApp,
  built,
  HttpsReceiver,
  newCredentials,
  PROJECT_ROOT,
  ReceivedRequest,
  startHttpsReceiver,
  SuiteEnvironment,
  TestApp,
  waitUntil,
} from './support';

/**
 * The SDK alone drives the service, as an application would: register, log in, create
 * resources, read every page of lists, subscribe a webhook and verify a real delivery from a
 * real worker at a local HTTPS receiver, and act as an OAuth client with a client-credentials
 * token. The suite has its own database: its worker trusts its receiver's certificate only.
 */
describe('SDK journey', () => {
  let suite: SuiteEnvironment;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let worker: ChildProcess;
  let rms: RmsClient;
  const resourceIds: string[] = [];

  beforeAll(async () => {
    suite = await createSuiteEnvironment('sdk');
    Object.assign(process.env, suite.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startHttpsReceiver();
    t = await createTestApp();
    worker = spawn(process.execPath, [built('apps/worker/src/main.ts')], {
      cwd: PROJECT_ROOT,
      stdio: 'ignore',
      env: { ...process.env, NODE_EXTRA_CA_CERTS: receiver.certFile, WEBHOOK_RELAY_INTERVAL_MS: '50' },
    });
  }, 60_000);

  afterAll(async () => {
    if (worker) {
      const exited = once(worker, 'exit');
      worker.kill('SIGTERM');
      await exited;
    }
    await t?.close();
    await receiver?.close();
    await suite?.destroy();
  });

  it('registers and logs in', async () => {
    const anonymous = createRmsClient({ baseUrl: t.url });
    const { email, username, password } = newCredentials();
    const { data: user } = await unwrap(anonymous.api.POST('/v2/auth/register', { body: { email, username, password } }));
    expect(user).toMatchObject({ id: expect.stringMatching(/^usr_/), email, username });
    const { data: tokens } = await unwrap(anonymous.api.POST('/v2/auth/login', { body: { email, password } }));
    expect(tokens.token_type).toBe('Bearer');
    rms = createRmsClient({ baseUrl: t.url, credentials: { tokens } });
    await expect(unwrap(rms.api.GET('/v2/users/me'))).resolves.toMatchObject({ data: { id: user.id } });
  });

  it('creates resources, one by one and in bulk', async () => {
    for (const name of ['alpha', 'beta', 'gamma']) {
      const { data } = await unwrap(rms.api.POST('/v2/resources', { body: { name, tags: ['sdk'] } }));
      expect(data).toMatchObject({ name, status: 'active', type: 'standard' });
      resourceIds.push(data.id);
    }
    const bulk = Array.from({ length: 22 }, (_, index) => ({ name: `bulk ${index}`, type: 'premium' as const }));
    const { data: created } = await unwrap(rms.api.POST('/v2/resources/bulk', { body: { resources: bulk } }));
    resourceIds.push(...created.map((resource) => resource.id));
    expect(resourceIds).toHaveLength(25);
  });

  it('reads every page of an offset list and of a cursor list', async () => {
    const offsetPages = [];
    for await (const page of rms.pages('/v2/resources', { params: { query: { per_page: 7, sort: 'name' } } })) offsetPages.push(page);
    expect(offsetPages.map((page) => page.data.length)).toEqual([7, 7, 7, 4]);
    expect(offsetPages.flatMap((page) => page.data.map((resource) => resource.id)).sort()).toEqual([...resourceIds].sort());

    const byCursor: string[] = [];
    for await (const resource of rms.paginate('/v2/resources', { params: { query: { limit: 6 } } })) byCursor.push(resource.id);
    // Newest first by default; the bulk's rows share a creation time, so compare as sets.
    expect([...byCursor].sort()).toEqual([...resourceIds].sort());

    const created = new Set<string>();
    for await (const event of rms.paginate('/v2/events', { params: { query: { limit: 10 } } })) {
      if (event.type === 'resource.created') created.add(event.data.object.id);
    }
    expect([...created].sort()).toEqual([...resourceIds].sort());
  });

  it('subscribes a webhook, and verifies the delivery of a change at a local HTTPS receiver', async () => {
    const { data: hook } = await unwrap(
      rms.api.POST('/v2/webhooks', { body: { url: `https://127.0.0.1:${receiver.port}/sdk`, events: ['resource.updated'] } }),
    );
    if (!hook.secret) throw new Error('a new webhook shows its generated secret once');
    expect(hook.secret).toMatch(/^whsec_/);
    const changed = resourceIds[0];
    await rms.api.PATCH('/v2/resources/{id}', { params: { path: { id: changed } }, body: { name: 'alpha, renamed' } });

    const delivery = await waitUntil<ReceivedRequest>(
      () => receiver.received.find((request) => request.url === '/sdk' && request.body.includes(changed)),
      30_000,
    );
    const event = await verifyWebhook(delivery.body, delivery.headers, hook.secret);
    if (event.type !== 'resource.updated') throw new Error(`expected resource.updated, got ${event.type}`);
    expect(event.data.object).toMatchObject({ id: changed, name: 'alpha, renamed', tags: ['sdk'] });
    expect(event.previous_data).toEqual({ name: 'alpha' });
    await expect(verifyWebhook(delivery.body, delivery.headers, hook.secret, { schemes: ['standard-webhooks'] })).resolves.toBeDefined();
    const hexOnly = { 'x-webhook-signature': delivery.headers['x-webhook-signature'] };
    await expect(verifyWebhook(delivery.body, hexOnly, hook.secret)).rejects.toMatchObject({ reason: 'missing_signature' });
    await expect(verifyWebhook(delivery.body, hexOnly, hook.secret, { allowLegacyHexOnly: true })).resolves.toBeDefined();
    const forged = verifyWebhook(delivery.body.replace('renamed', 'forged!'), delivery.headers, hook.secret);
    await expect(forged).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(forged).rejects.toMatchObject({ reason: 'signature_mismatch' });

    const succeeded = await waitUntil(async () => {
      for await (const row of rms.paginate('/v2/webhooks/{id}/deliveries', { params: { path: { id: hook.id } } })) {
        if (row.event_id === event.id && row.status === 'succeeded') return row;
      }
      return undefined;
    });
    expect(succeeded.attempts[0]).toMatchObject({ status_code: 200 });
  });

  it('acts as an OAuth client with a client-credentials token, within its scopes', async () => {
    const { data: client } = await unwrap(
      rms.api.POST('/v2/oauth-clients', {
        body: { name: 'sdk journey', redirect_uris: ['https://app.example.com/callback'], scopes: ['read:resources'] },
      }),
    );
    if (!client.client_secret) throw new Error('a confidential client shows its secret once');
    const service = createRmsClient({
      baseUrl: t.url,
      credentials: { clientCredentials: { clientId: client.id, clientSecret: client.client_secret, scope: 'read:resources' } },
    });
    const seen: string[] = [];
    for await (const resource of service.paginate('/v2/resources', { params: { query: { per_page: 10 } } })) seen.push(resource.id);
    expect(seen.sort()).toEqual([...resourceIds].sort());
    await expect(service.api.DELETE('/v2/resources/{id}', { params: { path: { id: resourceIds[1] } } })).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_permissions',
    });
  });
});
