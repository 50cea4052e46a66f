import { createRmsClient, ListedResource, Resource, RmsApiError, RmsClient, SparseResource } from '@rms/client';
import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import { createTestApp, createUser, HttpsReceiver, startHttpsReceiver, TestApp, TestUser } from './support';

/** Whether two types are the same. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * The record types (checked by npm run typecheck): a resource read without `fields` has every
 * field required, as the single form always carries it; a list without `fields` has the list
 * form's; `fields` narrows to `id` and those.
 */
const nameIsRequired: Same<Resource['name'], string> = true;
const descriptionIsRequired: Same<Resource['description'], string | null> = true;
const listFormIsNarrow: Same<keyof ListedResource, 'id' | 'name' | 'type' | 'status' | 'created_at' | 'updated_at'> = true;
const sparseIsIdAndFields: Same<keyof SparseResource<'tags'>, 'id' | 'tags'> = true;

async function rejection(promise: PromiseLike<unknown>): Promise<RmsApiError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof RmsApiError)) throw new Error(`expected an RmsApiError, got ${String(error)}`);
  return error;
}

/** The SDK's named methods (`rms.resources.get(id)` and the like) against the real API. */
describe('SDK namespaces', () => {
  let t: TestApp;
  let user: TestUser;
  let rms: RmsClient;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ENABLED: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    rms = createRmsClient({ baseUrl: t.url, credentials: { bearerToken: user.accessToken } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('types records by what the service always sends', () => {
    expect([nameIsRequired, descriptionIsRequired, listFormIsNarrow, sparseIsIdAndFields]).toEqual([true, true, true, true]);
  });

  describe('resources', () => {
    it('creates, reads, updates, replaces and deletes, each answer with its response', async () => {
      const { data: created, response: createdResponse } = await rms.resources
        .create({ name: 'Primary', tags: ['sdk'], metadata: { tier: 1 } }, { idempotencyKey: 'sdk-namespaces-create' })
        .withResponse();
      expect(created).toMatchObject({ id: expect.stringMatching(/^res_/), name: 'Primary', status: 'active', description: null });
      expect(createdResponse).toMatchObject({ status: 201, etag: '"1"', idempotentReplayed: false, requestId: expect.any(String) });
      expect(createdResponse.rateLimit).toEqual({ limit: 6000, remaining: expect.any(Number), resetAt: expect.any(Date) });

      const replay = await rms.resources.create({ name: 'Primary', tags: ['sdk'], metadata: { tier: 1 } }, { idempotencyKey: 'sdk-namespaces-create' }).withResponse();
      expect(replay.response.idempotentReplayed).toBe(true);
      expect(replay.data.id).toBe(created.id);

      const read = await rms.resources.get(created.id);
      expect(read).toEqual(created);
      const sparse = await rms.resources.get(created.id, { fields: ['tags'] });
      expect(sparse).toEqual({ id: created.id, tags: ['sdk'] });

      const { data: updated, response: updatedResponse } = await rms.resources.update(created.id, { description: 'Orders' }, { ifMatch: '"1"' }).withResponse();
      expect(updated.description).toBe('Orders');
      expect(updatedResponse).toMatchObject({ status: 200, etag: '"2"' });
      expect(await rms.resources.getIfChanged(created.id, '"2"')).toBeNull();
      expect(await rms.resources.getIfChanged(created.id, '"1"')).toMatchObject({ id: created.id, description: 'Orders' });

      const stale = await rejection(rms.resources.replace(created.id, { name: 'Renamed' }, { ifMatch: '"1"' }));
      expect(stale).toMatchObject({ status: 412, code: 'precondition_failed' });
      const replaced = await rms.resources.replace(created.id, { name: 'Renamed' }, { ifMatch: '"2"' });
      expect(replaced).toMatchObject({ name: 'Renamed', description: null, tags: [] });

      const deleted = await rms.resources.delete(created.id).withResponse();
      expect(deleted).toMatchObject({ data: undefined, response: { status: 204 } });
      expect(await rejection(rms.resources.get(created.id))).toMatchObject({ status: 404, code: 'resource_not_found' });
    });

    it('creates and updates in bulk', async () => {
      const { data, meta } = await rms.resources.bulkCreate([{ name: 'bulk a' }, { name: 'bulk b', type: 'premium' }]);
      expect(meta.count).toBe(2);
      expect(data.map((resource) => resource.name)).toEqual(['bulk a', 'bulk b']);
      const archived = await rms.resources.bulkUpdate(
        data.map((resource) => resource.id),
        { status: 'archived' },
      );
      expect(archived.data.map((resource) => resource.status)).toEqual(['archived', 'archived']);
    });

    it('lists one page when awaited, and every record when iterated, in either pagination style', async () => {
      await rms.resources.bulkCreate(Array.from({ length: 5 }, (_, index) => ({ name: `listed ${index}`, tags: ['listed'] })));
      const firstPage = await rms.resources.list({ per_page: 2, sort: 'name', 'filter[status]': 'active' });
      expect(firstPage.data).toHaveLength(2);
      expect(Object.keys(firstPage.data[0]).sort()).toEqual(['created_at', 'id', 'name', 'status', 'type', 'updated_at']);
      expect(firstPage.meta).toMatchObject({ page: 1, per_page: 2 });

      const offsetNames: string[] = [];
      for await (const resource of rms.resources.list({ per_page: 2, sort: 'name' })) if (resource.name.startsWith('listed')) offsetNames.push(resource.name);
      expect(offsetNames).toEqual(['listed 0', 'listed 1', 'listed 2', 'listed 3', 'listed 4']);

      const cursorPages = [];
      for await (const page of rms.resources.list({ limit: 2, fields: ['name'] }).pages()) cursorPages.push(page);
      expect(cursorPages.length).toBeGreaterThanOrEqual(3);
      expect(cursorPages[0].response).toMatchObject({ status: 200, requestId: expect.any(String) });
      expect(cursorPages.flatMap((page) => page.data.data).every((resource) => Object.keys(resource).sort().join() === 'id,name')).toBe(true);

      const { response } = await rms.resources.list({ limit: 1 }).withResponse();
      expect(response.rateLimit?.limit).toBe(6000);
    });
  });

  describe('API keys', () => {
    it('creates, lists and revokes a key, which then no longer works', async () => {
      const { data: created, response } = await rms.apiKeys.create({ name: 'Reports', scopes: ['read:resources'] }).withResponse();
      expect(response.status).toBe(201);
      expect(created.key).toMatch(/^sk_test_/);
      const keys = [];
      for await (const key of rms.apiKeys.list()) keys.push(key);
      expect(keys.map((key) => key.id)).toContain(created.id);
      expect(keys.find((key) => key.id === created.id)).not.toHaveProperty('key');

      const withKey = createRmsClient({ baseUrl: t.url, credentials: { apiKey: created.key ?? '' } });
      expect((await withKey.resources.list({ per_page: 1 })).data).toBeDefined();
      expect((await rms.apiKeys.revoke(created.id).withResponse()).response.status).toBe(204);
      expect(await rejection(withKey.resources.list({ per_page: 1 }))).toMatchObject({ status: 401 });
    });

    it('rolls a key: the new one works and the old one stops when expires_in is 0', async () => {
      const created = await rms.apiKeys.create({ name: 'Rolled', scopes: ['read:resources'] });
      const { data: rolled, response } = await rms.apiKeys.roll(created.id, { expires_in: 0 }).withResponse();
      expect(response.status).toBe(201);
      expect(rolled).toMatchObject({ id: expect.stringMatching(/^key_/), name: 'Rolled', key: expect.stringMatching(/^sk_test_/) });
      expect(rolled.id).not.toBe(created.id);
      const withNew = createRmsClient({ baseUrl: t.url, credentials: { apiKey: rolled.key ?? '' } });
      const withOld = createRmsClient({ baseUrl: t.url, credentials: { apiKey: created.key ?? '' } });
      expect((await withNew.resources.list({ per_page: 1 })).data).toBeDefined();
      expect(await rejection(withOld.resources.list({ per_page: 1 }))).toMatchObject({ status: 401 });
      expect(await rejection(rms.apiKeys.roll(created.id, { expires_in: -1 }))).toMatchObject({ status: 400 });
    });
  });

  describe('webhooks', () => {
    let receiver: HttpsReceiver;
    beforeAll(async () => {
      receiver = await startHttpsReceiver();
    });
    afterAll(async () => {
      await receiver.close();
    });

    it('creates, reads, updates, tests, and lists, reads and retries its deliveries, then deletes', async () => {
      const url = `https://127.0.0.1:${receiver.port}/hooks`;
      const created = await rms.webhooks.create({ url, events: ['resource.created'] });
      expect(created).toMatchObject({ id: expect.stringMatching(/^wh_/), status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
      expect(await rms.webhooks.get(created.id)).toMatchObject({ id: created.id, url });
      expect(await rms.webhooks.update(created.id, { description: 'Orders feed' })).toMatchObject({ description: 'Orders feed' });
      const webhooks = [];
      for await (const webhook of rms.webhooks.list()) webhooks.push(webhook.id);
      expect(webhooks).toContain(created.id);

      const { data: queued, response } = await rms.webhooks.test(created.id, { event_type: 'resource.created' }).withResponse();
      expect(response.status).toBe(202);
      expect(queued).toMatchObject({ webhook_id: created.id, event_type: 'resource.created', status: 'pending' });
      const deliveries = await rms.webhooks.deliveries.list(created.id);
      expect(deliveries.data.map((delivery) => delivery.id)).toEqual([queued.id]);
      expect(await rms.webhooks.deliveries.get(created.id, queued.id)).toMatchObject({ id: queued.id, event_id: queued.event_id });
      const retried = await rms.webhooks.deliveries.retry(created.id, queued.id).withResponse();
      expect(retried).toMatchObject({ data: { id: queued.id, status: 'pending' }, response: { status: 202 } });

      await rms.webhooks.delete(created.id);
      expect(await rejection(rms.webhooks.get(created.id))).toMatchObject({ status: 404 });
    });
    it('rotates the secret, and sends failed deliveries again, which the status and event_type filters pass through to find', async () => {
      const created = await rms.webhooks.create({ url: `https://127.0.0.1:${receiver.port}/rotated`, events: ['resource.created'] });
      const { data: rotated, response } = await rms.webhooks.rotateSecret(created.id, { expires_in: 3600 }).withResponse();
      expect(response.status).toBe(200);
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(created.secret);
      expect(Math.round((Date.parse(rotated.previous_secret_expires_at) - Date.now()) / 60_000)).toBe(60);

      const failed = newId('dlv');
      await t.app.get(DataSource).query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, attempts, created_at)
         VALUES ($1, $2, $3, 'resource.created', '{}', 'failed', '[]', now() - interval '2 hours')`,
        [failed, created.id, newId('evt')],
      );
      const failedIds = async (): Promise<string[]> => (await rms.webhooks.deliveries.list(created.id, { status: 'failed', event_type: 'resource.created' })).data.map((delivery) => delivery.id);
      expect(await failedIds()).toEqual([failed]);
      expect((await rms.webhooks.deliveries.list(created.id, { event_type: 'resource.deleted' })).data).toEqual([]);

      const since = new Date(Date.now() - 3 * 3_600_000).toISOString();
      const recovered = await rms.webhooks.recover(created.id, { since, until: new Date().toISOString() }).withResponse();
      expect(recovered).toMatchObject({ data: { queued: 1 }, response: { status: 202 } });
      expect(await failedIds()).toEqual([]);
      expect((await rms.webhooks.deliveries.list(created.id, { status: 'pending' })).data.map((delivery) => delivery.id)).toContain(failed);
      expect(await rejection(rms.webhooks.recover(created.id, { since: 'yesterday' }))).toMatchObject({ status: 400 });
    });
  });

  describe('events', () => {
    it('lists events in cursor pages and reads one', async () => {
      const resource = await rms.resources.create({ name: 'Evented' });
      const page = await rms.events.list({ limit: 100 });
      expect(page.meta.cursor).toHaveProperty('has_more');
      const event = page.data.find((candidate) => candidate.type === 'resource.created' && candidate.data.object.id === resource.id);
      expect(new Set((await rms.events.list({ type: 'resource.created', limit: 100 })).data.map((listed) => listed.type))).toEqual(new Set(['resource.created']));
      expect(event).toBeDefined();
      const { data: read, response } = await rms.events.get(event?.id ?? '').withResponse();
      expect(read).toEqual(event);
      expect(response.status).toBe(200);
    });
  });

  describe('organizations and members', () => {
    it('creates, reads, updates and deletes an organization, and adds, lists and removes a member', async () => {
      const member = await createUser(t.http);
      const slug = `sdk-${Date.now()}`;
      const { data: organization, response } = await rms.organizations.create({ name: 'Engines', slug }).withResponse();
      expect(response.status).toBe(201);
      expect(organization).toMatchObject({ id: expect.stringMatching(/^org_/), name: 'Engines', slug });
      expect(await rms.organizations.get(organization.id)).toEqual(organization);
      expect(await rms.organizations.update(organization.id, { name: 'Analytical Engines' })).toMatchObject({ name: 'Analytical Engines' });
      const organizations = [];
      for await (const listed of rms.organizations.list()) organizations.push(listed.id);
      expect(organizations).toContain(organization.id);

      expect(await rms.organizations.members.add(organization.id, { user_id: member.id, role: 'member' })).toMatchObject({ user_id: member.id, role: 'member' });
      const members = await rms.organizations.members.list(organization.id);
      expect(members.data.map((listed) => [listed.user_id, listed.role]).sort()).toEqual([[member.id, 'member'], [user.id, 'owner']].sort());
      expect((await rms.organizations.members.remove(organization.id, member.id).withResponse()).response.status).toBe(204);
      expect((await rms.organizations.members.list(organization.id)).data).toHaveLength(1);

      await rms.organizations.delete(organization.id);
      expect(await rejection(rms.organizations.get(organization.id))).toMatchObject({ status: 404 });
    });
  });

  describe('users', () => {
    it('reads and changes the account, lists accounts, and an admin changes another', async () => {
      expect(await rms.users.me()).toMatchObject({ id: user.id, email: user.email, plan: 'enterprise' });
      const changed = await rms.users.updateMe({ profile: { first_name: 'Ada' } });
      expect(changed.profile.first_name).toBe('Ada');
      const firstPage = await rms.users.list({ per_page: 1 });
      expect(firstPage.meta).toMatchObject({ page: 1, per_page: 1 });
      expect(await rejection(rms.users.update(user.id, { plan: 'pro' }))).toMatchObject({ status: 403 });

      const admin = await createUser(t.http, { db: t.db, role: 'admin', plan: 'enterprise' });
      const asAdmin = createRmsClient({ baseUrl: t.url, credentials: { bearerToken: admin.accessToken } });
      expect(await asAdmin.users.update(user.id, { plan: 'pro' })).toMatchObject({ id: user.id, plan: 'pro' });
    });
  });

  describe('OAuth clients', () => {
    it('creates, reads, lists and deletes a client', async () => {
      const created = await rms.oauthClients.create({ name: 'Nightly', redirect_uris: ['http://127.0.0.1:8080/callback'], scopes: ['read:resources'] });
      expect(created).toMatchObject({ id: expect.any(String), confidential: true, client_secret: expect.any(String) });
      expect(await rms.oauthClients.get(created.id)).toMatchObject({ id: created.id, name: 'Nightly' });
      const clients = [];
      for await (const client of rms.oauthClients.list()) clients.push(client.id);
      expect(clients).toContain(created.id);
      expect((await rms.oauthClients.delete(created.id).withResponse()).response.status).toBe(204);
      expect(await rejection(rms.oauthClients.get(created.id))).toMatchObject({ status: 404 });
    });
  });
});
