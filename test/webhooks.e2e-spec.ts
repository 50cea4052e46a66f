import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { EVENT_KINDS } from '@app/common';
import { sampleEvent } from '../apps/api/src/webhooks/sample-event';
import { createTestApp, createUser, errorFields, errorMessagesFor, expectError, PRODUCTION_SETTINGS, TestApp, TestUser } from './support';
import { FakeDnsServer, startFakeDnsServer } from './webhook-dns-server';

/**
 * URLs whose host Node's URL parser cannot read, or that cannot name a DNS host: each must be a
 * 400 on `url`, never a 500 (Schemathesis found the zone id) nor a stored webhook.
 */
const MALFORMED_URLS = [
  'https://[fe80::1%25eth0]/in',
  'https://[fe80::1%eth0]/in',
  'https://[::1',
  'https://%00/',
  'https://[v1.x]/',
  'https://[::1]:99999/',
  'https://1.2.3.4.5/',
  `https://${'a'.repeat(64)}.example.com/`,
  `https://${'a.'.repeat(130)}example.com/`,
  'https://public.hooks.test./in',
  // Not a URI (the API's url is `format: uri`): an international name goes as punycode.
  'https://bücher.example/in',
];

/** Webhook registrations: /v2/webhooks (docs/api.md#errors, docs/api.md#scopes and docs/api.md#webhooks). */
describe('Webhooks', () => {
  let t: TestApp;
  let db: DataSource;
  let owner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    // Suites here do not resolve real hosts; the refusal of private targets is tested below with it off.
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    t = await createTestApp();
    db = t.app.get(DataSource);
    owner = await createUser(t.http);
    stranger = await createUser(t.http);
  });
  afterAll(() => t.close());

  const bearer = (user: TestUser): [string, string] => ['Authorization', `Bearer ${user.accessToken}`];
  const create = (user: TestUser, body: unknown) =>
    t.http
      .post('/v2/webhooks')
      .set(...bearer(user))
      .send(body as object);
  const valid = { url: 'https://hooks.example.com/in', events: ['resource.created', 'resource.updated'] };

  async function newWebhook(user: TestUser = owner): Promise<{ id: string; secret: string }> {
    return (await create(user, valid).expect(201)).body.data;
  }

  describe('POST /v2/webhooks', () => {
    it('answers 201 with the record and a generated whsec_ secret, shown once', async () => {
      const res = await create(owner, { ...valid, description: 'CI' }).expect(201);
      expect(res.body.data).toEqual({
        id: expect.stringMatching(/^wh_/),
        url: valid.url,
        events: valid.events,
        status: 'enabled',
        description: 'CI',
        disabled_reason: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      });
      const read = await t.http.get(`/v2/webhooks/${res.body.data.id}`).set(...bearer(owner)).expect(200);
      expect(read.body.data).not.toHaveProperty('secret');
      const list = await t.http.get('/v2/webhooks').set(...bearer(owner)).expect(200);
      expect(list.body.data.every((webhook: object) => !('secret' in webhook))).toBe(true);
    });

    it('keeps a given secret of at least 16 characters', async () => {
      const res = await create(owner, { ...valid, secret: 'sixteen-chars-ok' }).expect(201);
      expect(res.body.data.secret).toBe('sixteen-chars-ok');
      const [row] = await db.query('SELECT secret FROM webhooks WHERE id = $1', [res.body.data.id]);
      expect(row.secret).toBe('sixteen-chars-ok');
    });

    it.each([
      ['url', { ...valid, url: 'http://hooks.example.com/in' }],
      ['url', { ...valid, url: 'not a url' }],
      ['url', { ...valid, url: 42 }],
      ['url', { events: valid.events }],
      ['events', { ...valid, events: [] }],
      ['events', { ...valid, events: ['resource.exploded'] }],
      ['events', { ...valid, events: ['resource.created', 'resource.created'] }],
      ['events', { ...valid, events: 'resource.created' }],
      ['events', { url: valid.url }],
      ['secret', { ...valid, secret: 'too-short' }],
      ['secret', { ...valid, secret: 1234567890123456 }],
      ['secret', { ...valid, secret: null }],
      ['description', { ...valid, description: 'x'.repeat(501) }],
    ])('refuses a bad %s with 400 validation_error', async (field, body) => {
      const res = await create(owner, body);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual([field]);
    });

    it.each(MALFORMED_URLS)('refuses %s with 400 on url, though private targets are allowed', async (url) => {
      const res = await create(owner, { ...valid, url });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['url']);
    });

    it('refuses unknown fields', async () => {
      const res = await create(owner, { ...valid, status: 'disabled' });
      expect(res.status).toBe(400);
    });

    it('needs write:webhooks to create and read:webhooks to list (docs/api.md#scopes)', async () => {
      const keyWith = async (scopes: string[]): Promise<string> =>
        (await t.http.post('/v2/api-keys').set(...bearer(owner)).send({ name: 'scoped', scopes }).expect(201)).body.data.key;
      const readOnly = await keyWith(['read:webhooks']);
      expectError(await t.http.post('/v2/webhooks').set('X-API-Key', readOnly).send(valid), 403, 'insufficient_permissions');
      await t.http.get('/v2/webhooks').set('X-API-Key', readOnly).expect(200);
      const writeOnly = await keyWith(['write:webhooks']);
      await t.http.post('/v2/webhooks').set('X-API-Key', writeOnly).send(valid).expect(201);
      expectError(await t.http.get('/v2/webhooks').set('X-API-Key', writeOnly), 403, 'insufficient_permissions');
    });

    it('needs authentication', async () => {
      expectError(await t.http.post('/v2/webhooks').send(valid), 401, 'authentication_required');
    });
  });

  describe('PATCH /v2/webhooks/{id}', () => {
    it('changes fields and re-enables a disabled webhook, clearing disabled_reason', async () => {
      const { id } = await newWebhook();
      await db.query(`UPDATE webhooks SET status = 'disabled', disabled_reason = 'gave up' WHERE id = $1`, [id]);
      const res = await t.http
        .patch(`/v2/webhooks/${id}`)
        .set(...bearer(owner))
        .send({ status: 'enabled', events: ['user.updated'] })
        .expect(200);
      expect(res.body.data).toMatchObject({ status: 'enabled', disabled_reason: null, events: ['user.updated'] });
      expect(res.body.data).not.toHaveProperty('secret');
    });

    it.each([
      ['url', { url: 'http://x.example.com' }],
      ['url', { url: 'https://[fe80::1%25eth0]/in' }],
      ['events', { events: ['nope'] }],
      ['secret', { secret: 'short' }],
      ['status', { status: 'sleeping' }],
      ['url', { url: null }],
      ['events', { events: null }],
      ['secret', { secret: null }],
      ['status', { status: null }],
    ])('refuses a bad %s', async (field, body) => {
      const { id } = await newWebhook();
      const res = await t.http.patch(`/v2/webhooks/${id}`).set(...bearer(owner)).send(body);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual([field]);
    });
  });

  describe('DELETE /v2/webhooks/{id}', () => {
    it('answers 204, then 404', async () => {
      const { id } = await newWebhook();
      await t.http.delete(`/v2/webhooks/${id}`).set(...bearer(owner)).expect(204);
      expectError(await t.http.get(`/v2/webhooks/${id}`).set(...bearer(owner)), 404, 'resource_not_found');
    });
  });

  describe('deliveries', () => {
    it('lists and reads the deliveries of a webhook', async () => {
      const { id } = await newWebhook();
      await db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body)
         VALUES ('dlv_01M83J1BG441AVKTCT1S4B49EA', $1, 'evt_01M83J1BG441AVKTCT1S4B49EA', 'resource.created', '{}')`,
        [id],
      );
      const list = await t.http.get(`/v2/webhooks/${id}/deliveries`).set(...bearer(owner)).expect(200);
      expect(list.body.data).toEqual([
        {
          id: 'dlv_01M83J1BG441AVKTCT1S4B49EA',
          webhook_id: id,
          event_id: 'evt_01M83J1BG441AVKTCT1S4B49EA',
          event_type: 'resource.created',
          status: 'pending',
          attempts: [],
          next_attempt_at: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ]);
      const one = await t.http
        .get(`/v2/webhooks/${id}/deliveries/dlv_01M83J1BG441AVKTCT1S4B49EA`)
        .set(...bearer(owner))
        .expect(200);
      expect(one.body.data.id).toBe('dlv_01M83J1BG441AVKTCT1S4B49EA');
      expectError(
        await t.http.get(`/v2/webhooks/${id}/deliveries/dlv_unknown`).set(...bearer(owner)),
        404,
        'resource_not_found',
      );
    });
  });

  describe('ownership', () => {
    it('answers 404 to another user on every webhook path', async () => {
      const { id } = await newWebhook();
      const as = bearer(stranger);
      const dlv = 'dlv_01M83J1BG441AVKTCT1S4B49EA';
      for (const res of [
        await t.http.get(`/v2/webhooks/${id}`).set(...as),
        await t.http.patch(`/v2/webhooks/${id}`).set(...as).send({ status: 'disabled' }),
        await t.http.delete(`/v2/webhooks/${id}`).set(...as),
        await t.http.get(`/v2/webhooks/${id}/deliveries`).set(...as),
        await t.http.get(`/v2/webhooks/${id}/deliveries/${dlv}`).set(...as),
        await t.http.post(`/v2/webhooks/${id}/deliveries/${dlv}/retry`).set(...as),
        await t.http.post(`/v2/webhooks/${id}/test`).set(...as).send({}),
        await t.http.post('/v2/webhooks/test').set(...as).send({ webhook_id: id }),
      ]) {
        expectError(res, 404, 'resource_not_found');
      }
      const list = await t.http.get('/v2/webhooks').set(...as).expect(200);
      expect(list.body.data.map((webhook: { id: string }) => webhook.id)).not.toContain(id);
    });

    it('refuses a bad test trigger body', async () => {
      const { id } = await newWebhook();
      const bad = await t.http.post(`/v2/webhooks/${id}/test`).set(...bearer(owner)).send({ event_type: 'nope' });
      expectError(bad, 400, 'validation_error');
      expect(errorFields(bad)).toEqual(['event_type']);
      const missing = await t.http.post('/v2/webhooks/test').set(...bearer(owner)).send({});
      expectError(missing, 400, 'validation_error');
      expect(errorFields(missing)).toEqual(['webhook_id']);
    });

    it('answers 404 to a malformed id', async () => {
      expectError(await t.http.get('/v2/webhooks/nope').set(...bearer(owner)), 404, 'resource_not_found');
    });
  });

  it('serves a listening process to fetch', async () => {
    const address = t.app.getHttpServer().address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${address.port}/v2/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${owner.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(valid),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { data: { secret: string } };
    expect(body.data.secret).toMatch(/^whsec_/);
  });

  it.each(EVENT_KINDS)('sends test triggers of %s in the payload the document promises for that kind', async (kind) => {
    const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as object;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, 'openapi');
    const validate = ajv.compile({ $ref: `openapi#/webhooks/${kind}/post/requestBody/content/application~1json/schema` });
    const sample = sampleEvent(kind);
    expect({ valid: validate(sample), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });
});

describe('Webhooks to private addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  let t: TestApp;
  let owner: TestUser;
  let dns: FakeDnsServer;

  beforeAll(async () => {
    // Names are asked of a DNS server of the test's own, which knows only these.
    dns = await startFakeDnsServer({
      records: { 'public.hooks.test': ['93.184.216.34'], 'xn--bcher-kva.hooks.test': ['93.184.216.34'] },
    });
    Object.assign(process.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_DNS_SERVERS: dns.address });
    t = await createTestApp();
    owner = await createUser(t.http);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  const auth = (): [string, string] => ['Authorization', `Bearer ${owner.accessToken}`];
  const create = (url: string) => t.http.post('/v2/webhooks').set(...auth()).send({ url, events: ['resource.created'] });

  it.each([
    'https://127.0.0.1/in',
    'https://localhost:8443/in',
    'https://localhost./in',
    'https://10.0.0.5/in',
    'https://169.254.169.254/latest/meta-data',
    'https://0xa9fea9fe/latest/meta-data',
    'https://[::1]/in',
    'https://[::ffff:127.0.0.1]/in',
    'https://no-such-host.invalid/in',
    'https://no-such-host.invalid./in',
  ])('refuses %s at create', async (url) => {
    const res = await create(url);
    expectError(res, 400, 'validation_error');
    expect(errorFields(res)).toEqual(['url']);
  });

  it.each([
    ['IPv4-compatible (::/96)', 'https://[::127.0.0.1]/in'],
    ['IPv4-compatible, public inside', 'https://[::8.8.8.8]/in'],
    ['IPv4-translated (rfc6145)', 'https://[::ffff:0:127.0.0.1]/in'],
    ['local-use NAT64 (RFC 8215)', 'https://[64:ff9b:1::7f00:1]/in'],
    ['6to4 (RFC 3056)', 'https://[2002:7f00:1::1]/in'],
    ['Teredo (RFC 4380)', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/in'],
    ['well-known NAT64 of a private address', 'https://[64:ff9b::10.0.0.1]/in'],
  ])('refuses the IPv6 form %s at create: %s', async (_form, url) => {
    const res = await create(url);
    expectError(res, 400, 'validation_error');
    expect(errorFields(res)).toEqual(['url']);
  });

  it.each(['https://8.8.8.8/in', 'https://[2606:4700::1111]/in', 'https://[64:ff9b::8.8.8.8]/in', 'https://public.hooks.test/in', 'https://xn--bcher-kva.hooks.test/in'])(
    'accepts the public %s',
    async (url) => {
      await create(url).expect(201);
    },
  );

  it.each(MALFORMED_URLS)('refuses %s with 400 on url', async (url) => {
    const res = await create(url);
    expectError(res, 400, 'validation_error');
    expect(errorFields(res)).toEqual(['url']);
  });

  it('says a target is not allowed without saying what the host resolved to', async () => {
    for (const url of ['https://localhost/in', 'https://127.0.0.1/in', 'https://[::ffff:127.0.0.1]/in']) {
      const message = errorMessagesFor(await create(url), 'url');
      expect(message).toMatch(/must point to a public host/);
      expect(message).not.toMatch(/127\.0\.0\.1|::1|7f00/);
    }
  });

  it('refuses a private or unparsable url on update', async () => {
    const created = await create('https://8.8.8.8/in');
    expect(created.status).toBe(201);
    for (const url of ['https://127.0.0.1/in', 'https://[::127.0.0.1]/in', 'https://[fe80::1%25eth0]/in']) {
      const res = await t.http.patch(`/v2/webhooks/${created.body.data.id}`).set(...auth()).send({ url });
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['url']);
    }
  });
});

/**
 * A receiver on the developer's own machine over plain http (docs/webhooks.md#which-urls-are-allowed):
 * WEBHOOK_ALLOW_LOOPBACK_HTTP, true by default in development alone.
 */
describe('http:// loopback webhook urls', () => {
  const LOOPBACK_HTTP = ['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks', 'http://[::1]:4000/hooks'];
  // Private targets stay refused in each app here, so only the loopback http setting decides.
  const strict = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' };
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  async function appWith(env: Record<string, string>): Promise<{ create: (url: string) => Promise<Response>; update: (id: string, url: string) => Promise<Response> }> {
    const t = await createTestApp({ env: { ...strict, ...env } });
    apps.push(t);
    const user = await createUser(t.http);
    const auth = ['Authorization', `Bearer ${user.accessToken}`] as const;
    return {
      create: async (url) => t.http.post('/v2/webhooks').set(...auth).send({ url, events: ['resource.created'] }),
      update: async (id, url) => t.http.patch(`/v2/webhooks/${id}`).set(...auth).send({ url }),
    };
  }

  it.each([
    ['production', { ...PRODUCTION_SETTINGS, SHUTDOWN_DELAY_MS: '0' }],
    ['test (the run itself)', {}],
    ['development with WEBHOOK_ALLOW_LOOPBACK_HTTP=false', { NODE_ENV: 'development', WEBHOOK_ALLOW_LOOPBACK_HTTP: 'false' }],
  ])('%s refuses an http loopback target with 400 validation_error on url', async (_mode, env) => {
    const { create } = await appWith(env);
    for (const url of LOOPBACK_HTTP) {
      const res = await create(url);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['url']);
      expect(errorMessagesFor(res, 'url')).toMatch(/must be an https:\/\/ URL; http:\/\/ to a loopback host is taken only .*WEBHOOK_ALLOW_LOOPBACK_HTTP=true/);
    }
  });

  it('production refuses it on update too', async () => {
    // Private https targets allowed here, so that the webhook to update can be made at all.
    const { create, update } = await appWith({ ...PRODUCTION_SETTINGS, SHUTDOWN_DELAY_MS: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const created = await create('https://127.0.0.1/in');
    expect(created.status).toBe(201);
    const res = await update(created.body.data.id, 'http://127.0.0.1:4000/hooks');
    expectError(res, 400, 'validation_error');
    expect(errorFields(res)).toEqual(['url']);
  });

  it('development takes it by default, on create and update, and still refuses http to any other host', async () => {
    const { create, update } = await appWith({ NODE_ENV: 'development' });
    for (const url of LOOPBACK_HTTP) {
      const res = await create(url);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ url, status: 'enabled' });
    }
    const created = await create('http://127.0.0.1:4000/hooks');
    expect((await update(created.body.data.id, 'http://localhost:4001/other')).body.data).toMatchObject({ url: 'http://localhost:4001/other' });
    for (const url of ['http://hooks.example.com/in', 'http://10.0.0.5/in', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/in']) {
      const res = await create(url);
      expectError(res, 400, 'validation_error');
      expect(errorMessagesFor(res, 'url')).toMatch(/^must be an https:\/\/ URL, in ASCII/);
    }
  });
});
