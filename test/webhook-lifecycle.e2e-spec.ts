import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import { createTestApp, createUser, errorFields, errorMessagesFor, expectError, TestApp, TestUser } from './support';

/**
 * The routes of a webhook's lifecycle (decisions §14, docs/webhooks.md): secret rotation, pause,
 * recovery of failed deliveries, and the filtered lists of deliveries and events. What the
 * worker sends meanwhile is in webhook-lifecycle-delivery.e2e-spec.ts.
 */
describe('Webhook lifecycle routes', () => {
  let t: TestApp;
  let db: DataSource;
  let owner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    t = await createTestApp();
    db = t.app.get(DataSource);
    owner = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    stranger = await createUser(t.http, { db: t.db, plan: 'enterprise' });
  });
  afterAll(() => t.close());

  const bearer = (user: TestUser = owner): [string, string] => ['Authorization', `Bearer ${user.accessToken}`];
  const daysAgo = (days: number): string => new Date(Date.now() - days * 86_400_000).toISOString();

  async function newWebhook(user: TestUser = owner): Promise<{ id: string; secret: string }> {
    const res = await t.http
      .post('/v2/webhooks')
      .set(...bearer(user))
      .send({ url: 'https://hooks.example.com/in', events: ['resource.created', 'resource.updated'] })
      .expect(201);
    return res.body.data;
  }

  async function apiKey(scopes: string[]): Promise<string> {
    const res = await t.http.post('/v2/api-keys').set(...bearer()).send({ name: 'hooks', scopes }).expect(201);
    return res.body.data.key;
  }

  /** A delivery row as the worker leaves it, `createdAt` in the past when given. */
  async function insertDelivery(
    webhookId: string,
    status: 'pending' | 'succeeded' | 'failed',
    options: { eventType?: string; createdAt?: string; attempts?: number; test?: boolean } = {},
  ): Promise<string> {
    const id = newId('dlv');
    const attempts = Array.from({ length: options.attempts ?? (status === 'pending' ? 0 : 1) }, () => ({
      attempted_at: new Date().toISOString(),
      status_code: status === 'succeeded' ? 200 : 500,
      duration_ms: 3,
      error: null,
      response_body: null,
    }));
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, test, status, attempts, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, '{}', $5, $6, $7, NULL, $8)`,
      [id, webhookId, newId('evt'), options.eventType ?? 'resource.created', options.test ?? false, status, JSON.stringify(attempts), options.createdAt ?? new Date().toISOString()],
    );
    return id;
  }

  describe('POST /v2/webhooks/{id}/secret/rotate', () => {
    const rotate = (id: string, body?: object, user: TestUser = owner) => {
      const req = t.http.post(`/v2/webhooks/${id}/secret/rotate`).set(...bearer(user));
      return body === undefined ? req : req.send(body);
    };

    it('answers 200 with a generated whsec_ secret, once, and the previous one kept for a day by default', async () => {
      const hook = await newWebhook();
      const start = Date.now();
      const res = await rotate(hook.id).expect(200);
      expect(res.body).toEqual({ data: { secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.any(String) } });
      const expiresAt = new Date(res.body.data.previous_secret_expires_at).getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(start + 86_400_000 - 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);
      const [row] = await db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]);
      expect(row).toEqual({ secret: res.body.data.secret, previous_secret: hook.secret });
      const read = await t.http.get(`/v2/webhooks/${hook.id}`).set(...bearer()).expect(200);
      expect(JSON.stringify(read.body)).not.toContain(res.body.data.secret);
    });

    it('takes a given secret and expires_in (through Node fetch); a second rotation forgets the oldest secret', async () => {
      const hook = await newWebhook();
      const answer = await fetch(`${t.url}/v2/webhooks/${hook.id}/secret/rotate`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${owner.accessToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ secret: 'my-own-secret-of-16+', expires_in: 60 }),
      });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { data: { secret: string; previous_secret_expires_at: string } };
      expect(body.data.secret).toBe('my-own-secret-of-16+');
      expect(Math.abs(new Date(body.data.previous_secret_expires_at).getTime() - Date.now() - 60_000)).toBeLessThan(2000);
      await rotate(hook.id, { secret: 'the-third-secret-here', expires_in: 0 }).expect(200);
      const [row] = await db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]);
      expect(row).toEqual({ secret: 'the-third-secret-here', previous_secret: 'my-own-secret-of-16+' });
    });

    it.each([
      ['a secret of 15 characters', { secret: 's'.repeat(15) }, 'secret'],
      ['a secret that is not a string', { secret: 1234567890123456 }, 'secret'],
      ['a null secret', { secret: null }, 'secret'],
      ['a negative expires_in', { expires_in: -1 }, 'expires_in'],
      ['expires_in over seven days', { expires_in: 604_801 }, 'expires_in'],
      ['a fractional expires_in', { expires_in: 0.5 }, 'expires_in'],
      ['an unknown field', { previous_secret: 'x'.repeat(20) }, 'previous_secret'],
    ])('answers 400 validation_error for %s, changing nothing', async (_case, body, field) => {
      const hook = await newWebhook();
      const res = await rotate(hook.id, body);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual([field]);
      const [row] = await db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]);
      expect(row).toEqual({ secret: hook.secret, previous_secret: null });
    });

    it("answers 404 for an unknown webhook, a malformed id and another user's webhook", async () => {
      const theirs = await newWebhook(stranger);
      expectError(await rotate('wh_01JD3Q0F6K8W2M4N6P8R0T2V4X'), 404, 'resource_not_found');
      expectError(await rotate('not-an-id'), 404, 'resource_not_found');
      expectError(await rotate(theirs.id), 404, 'resource_not_found');
    });

    it('with an Idempotency-Key, replays the answer without the secret instead of rotating twice', async () => {
      const hook = await newWebhook();
      const first = await rotate(hook.id, { expires_in: 60 }).set('Idempotency-Key', `rotate-${hook.id}`).expect(200);
      const again = await rotate(hook.id, { expires_in: 60 }).set('Idempotency-Key', `rotate-${hook.id}`).expect(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['idempotent-secret-omitted']).toBe('secret');
      expect(again.body).toEqual({ data: { previous_secret_expires_at: first.body.data.previous_secret_expires_at } });
      const [row] = await db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]);
      expect(row).toEqual({ secret: first.body.data.secret, previous_secret: hook.secret });
    });

    it('needs a credential (401) and write:webhooks (403 without it)', async () => {
      const hook = await newWebhook();
      expectError(await t.http.post(`/v2/webhooks/${hook.id}/secret/rotate`), 401, 'authentication_required');
      const reader = await apiKey(['read:webhooks']);
      expectError(await t.http.post(`/v2/webhooks/${hook.id}/secret/rotate`).set('X-API-Key', reader), 403, 'insufficient_permissions');
      const writer = await apiKey(['write:webhooks']);
      await t.http.post(`/v2/webhooks/${hook.id}/secret/rotate`).set('X-API-Key', writer).expect(200);
    });
  });

  describe('PATCH /v2/webhooks/{id} status: paused', () => {
    it('pauses and enables again, clearing disabled_reason', async () => {
      const hook = await newWebhook();
      await db.query(`UPDATE webhooks SET status = 'disabled', disabled_reason = 'gave up' WHERE id = $1`, [hook.id]);
      const paused = await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'paused' }).expect(200);
      expect(paused.body.data).toMatchObject({ status: 'paused', disabled_reason: null });
      const enabled = await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'enabled' }).expect(200);
      expect(enabled.body.data.status).toBe('enabled');
    });

    it('on enabling, makes every held delivery due again', async () => {
      const hook = await newWebhook();
      await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'paused' }).expect(200);
      const held = await insertDelivery(hook.id, 'pending');
      const finished = await insertDelivery(hook.id, 'failed');
      await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'enabled' }).expect(200);
      const rows: Array<{ id: string; next_attempt_at: Date | null }> = await db.query(
        'SELECT id, next_attempt_at FROM webhook_deliveries WHERE id = ANY($1)',
        [[held, finished]],
      );
      expect(rows.find((row) => row.id === held)?.next_attempt_at).toBeInstanceOf(Date);
      expect(rows.find((row) => row.id === finished)?.next_attempt_at).toBeNull();
    });

    it('refuses an unknown status naming the choices', async () => {
      const hook = await newWebhook();
      const res = await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'sleeping' });
      expectError(res, 400, 'validation_error');
      expect(errorMessagesFor(res, 'status')).toMatch(/enabled, disabled or paused/);
    });
  });

  describe('POST /v2/webhooks/{id}/recover', () => {
    const recover = (id: string, body: object, user: TestUser = owner) => t.http.post(`/v2/webhooks/${id}/recover`).set(...bearer(user)).send(body);

    it('answers 202 with the count, putting the failed deliveries of the window back to pending with a fresh schedule', async () => {
      const hook = await newWebhook();
      const inWindow = await insertDelivery(hook.id, 'failed', { attempts: 5, createdAt: daysAgo(2) });
      const alsoIn = await insertDelivery(hook.id, 'failed', { attempts: 1, createdAt: daysAgo(1) });
      const tooOld = await insertDelivery(hook.id, 'failed', { createdAt: daysAgo(4) });
      const afterUntil = await insertDelivery(hook.id, 'failed', { createdAt: daysAgo(0.1) });
      const succeeded = await insertDelivery(hook.id, 'succeeded', { createdAt: daysAgo(2) });
      const sample = await insertDelivery(hook.id, 'failed', { createdAt: daysAgo(2), test: true });
      const res = await recover(hook.id, { since: daysAgo(3), until: daysAgo(0.5) }).expect(202);
      expect(res.body).toEqual({ data: { queued: 2 } });
      const rows: Array<{ id: string; status: string; schedule_start: number; attempts: unknown[] }> = await db.query(
        'SELECT id, status, schedule_start, attempts FROM webhook_deliveries WHERE webhook_id = $1',
        [hook.id],
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      expect(byId.get(inWindow)).toMatchObject({ status: 'pending', schedule_start: 5 });
      expect(byId.get(inWindow)?.attempts).toHaveLength(5);
      expect(byId.get(alsoIn)).toMatchObject({ status: 'pending', schedule_start: 1 });
      for (const untouched of [tooOld, afterUntil, sample]) expect(byId.get(untouched)).toMatchObject({ status: 'failed', schedule_start: 0 });
      expect(byId.get(succeeded)?.status).toBe('succeeded');
      const listed = await t.http.get(`/v2/webhooks/${hook.id}/deliveries?status=pending`).set(...bearer()).expect(200);
      expect(listed.body.data.map((delivery: { id: string }) => delivery.id).sort()).toEqual([inWindow, alsoIn].sort());
    });

    it('until defaults to now; nothing failed is 202 with queued 0 (through Node fetch)', async () => {
      const hook = await newWebhook();
      const answer = await fetch(`${t.url}/v2/webhooks/${hook.id}/recover`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${owner.accessToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ since: daysAgo(14 - 0.01) }),
      });
      expect(answer.status).toBe(202);
      expect(await answer.json()).toEqual({ data: { queued: 0 } });
    });

    it.each([
      ['since missing', {}, 'since'],
      ['since more than 14 days back', { since: daysAgo(14.1) }, 'since'],
      ['since in the future', { since: new Date(Date.now() + 60_000).toISOString() }, 'since'],
      ['since not a date-time', { since: 'yesterday' }, 'since'],
      ['since null', { since: null }, 'since'],
      ['until not a date-time', { since: daysAgo(1), until: 42 }, 'until'],
      ['until before since', { since: daysAgo(1), until: daysAgo(2) }, 'until'],
      ['an unknown field', { since: daysAgo(1), status: 'failed' }, 'status'],
    ])('answers 400 validation_error for %s', async (_case, body, field) => {
      const hook = await newWebhook();
      const res = await recover(hook.id, body);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual([field]);
    });

    it('answers 409 conflict for a disabled webhook, asking to enable it first', async () => {
      const hook = await newWebhook();
      const failed = await insertDelivery(hook.id, 'failed');
      await t.http.patch(`/v2/webhooks/${hook.id}`).set(...bearer()).send({ status: 'disabled' }).expect(200);
      expectError(await recover(hook.id, { since: daysAgo(1) }), 409, 'conflict', /enable it/);
      const [row] = await db.query('SELECT status FROM webhook_deliveries WHERE id = $1', [failed]);
      expect(row.status).toBe('failed');
    });

    it("answers 404 for an unknown webhook, a malformed id and another user's webhook", async () => {
      const theirs = await newWebhook(stranger);
      const failed = await insertDelivery(theirs.id, 'failed');
      expectError(await recover('wh_01JD3Q0F6K8W2M4N6P8R0T2V4X', { since: daysAgo(1) }), 404, 'resource_not_found');
      expectError(await recover('dlv_nope', { since: daysAgo(1) }), 404, 'resource_not_found');
      expectError(await recover(theirs.id, { since: daysAgo(1) }), 404, 'resource_not_found');
      const [row] = await db.query('SELECT status FROM webhook_deliveries WHERE id = $1', [failed]);
      expect(row.status).toBe('failed');
    });

    it('needs a credential (401) and write:webhooks (403 without it)', async () => {
      const hook = await newWebhook();
      expectError(await t.http.post(`/v2/webhooks/${hook.id}/recover`).send({ since: daysAgo(1) }), 401, 'authentication_required');
      const reader = await apiKey(['read:webhooks']);
      expectError(await t.http.post(`/v2/webhooks/${hook.id}/recover`).set('X-API-Key', reader).send({ since: daysAgo(1) }), 403, 'insufficient_permissions');
    });
  });

  describe('GET /v2/webhooks/{id}/deliveries?status=&event_type=', () => {
    it('narrows by status, by event kind and by both, with page links that keep the filters', async () => {
      const hook = await newWebhook();
      const failedCreated = await insertDelivery(hook.id, 'failed', { eventType: 'resource.created', createdAt: daysAgo(0.3) });
      const failedUpdated = await insertDelivery(hook.id, 'failed', { eventType: 'resource.updated', createdAt: daysAgo(0.2) });
      const okCreated = await insertDelivery(hook.id, 'succeeded', { eventType: 'resource.created', createdAt: daysAgo(0.1) });
      const ids = async (query: string): Promise<string[]> =>
        (await t.http.get(`/v2/webhooks/${hook.id}/deliveries?${query}`).set(...bearer()).expect(200)).body.data.map((row: { id: string }) => row.id);
      expect(await ids('status=failed')).toEqual([failedUpdated, failedCreated]);
      expect(await ids('event_type=resource.created')).toEqual([okCreated, failedCreated]);
      expect(await ids('status=failed&event_type=resource.created')).toEqual([failedCreated]);
      expect(await ids('status=pending')).toEqual([]);
      const page = await t.http.get(`/v2/webhooks/${hook.id}/deliveries?status=failed&per_page=1`).set(...bearer()).expect(200);
      expect(page.body.data.map((row: { id: string }) => row.id)).toEqual([failedUpdated]);
      expect(page.body.meta).toMatchObject({ total: 2, total_pages: 2 });
      expect(page.body.meta.links.next).toBe(`/v2/webhooks/${hook.id}/deliveries?status=failed&page=2&per_page=1`);
    });

    it.each([
      ['an unknown status', 'status=lost', 'status'],
      ['an unknown event kind', 'event_type=resource.exploded', 'event_type'],
      ['a status given twice', 'status=failed&status=pending', 'status'],
      ['an unknown parameter', 'kind=resource.created', 'kind'],
    ])('answers 400 validation_error naming the parameter for %s', async (_case, query, field) => {
      const hook = await newWebhook();
      const res = await t.http.get(`/v2/webhooks/${hook.id}/deliveries?${query}`).set(...bearer());
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual([field]);
    });

    it("answers 404 for another user's webhook, and needs read:webhooks", async () => {
      const theirs = await newWebhook(stranger);
      expectError(await t.http.get(`/v2/webhooks/${theirs.id}/deliveries?status=failed`).set(...bearer()), 404, 'resource_not_found');
      const hook = await newWebhook();
      const writer = await apiKey(['write:webhooks']);
      expectError(await t.http.get(`/v2/webhooks/${hook.id}/deliveries?status=failed`).set('X-API-Key', writer), 403, 'insufficient_permissions');
      expectError(await t.http.get(`/v2/webhooks/${hook.id}/deliveries?status=failed`), 401, 'authentication_required');
    });
  });

  describe('GET /v2/events?type=', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
      for (const name of ['one', 'two']) {
        const created = await t.http.post('/v2/resources').set(...bearer(user)).send({ name }).expect(201);
        await t.http.patch(`/v2/resources/${created.body.data.id}`).set(...bearer(user)).send({ name: `${name}!` }).expect(200);
      }
    });
    const types = async (query: string): Promise<string[]> =>
      (await t.http.get(`/v2/events?${query}`).set(...bearer(user)).expect(200)).body.data.map((event: { type: string }) => event.type);

    it('narrows to one kind, or several comma-separated, newest first', async () => {
      expect(await types('type=resource.updated')).toEqual(['resource.updated', 'resource.updated']);
      expect(await types('type=resource.created,resource.updated')).toEqual(['resource.updated', 'resource.created', 'resource.updated', 'resource.created']);
      expect(await types('type=resource.deleted')).toEqual([]);
    });

    it('pages with cursors bound to the kinds: another kind with that cursor is invalid_request', async () => {
      const first = await t.http.get('/v2/events?type=resource.created&limit=1').set(...bearer(user)).expect(200);
      expect(first.body.meta.cursor.has_more).toBe(true);
      const cursor = encodeURIComponent(first.body.meta.cursor.next as string);
      const second = await t.http.get(`/v2/events?type=resource.created&limit=1&cursor=${cursor}`).set(...bearer(user)).expect(200);
      expect(second.body.data.map((event: { type: string }) => event.type)).toEqual(['resource.created']);
      expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
      expectError(await t.http.get(`/v2/events?type=resource.updated&limit=1&cursor=${cursor}`).set(...bearer(user)), 400, 'invalid_request');
      expectError(await t.http.get(`/v2/events?limit=1&cursor=${cursor}`).set(...bearer(user)), 400, 'invalid_request');
    });

    it.each([
      ['an unknown kind', 'type=resource.exploded'],
      ['one unknown kind among known ones', 'type=resource.created,nope'],
      ['an empty value', 'type='],
      ['type given twice', 'type=resource.created&type=resource.updated'],
    ])('answers 400 validation_error naming type for %s', async (_case, query) => {
      const res = await t.http.get(`/v2/events?${query}`).set(...bearer(user));
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['type']);
    });

    it('needs a credential (401) and read:events (403 without it)', async () => {
      expectError(await t.http.get('/v2/events?type=resource.created'), 401, 'authentication_required');
      const webhooksOnly = await apiKey(['read:webhooks']);
      expectError(await t.http.get('/v2/events?type=resource.created').set('X-API-Key', webhooksOnly), 403, 'insufficient_permissions');
    });
  });
});
