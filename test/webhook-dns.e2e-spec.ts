import type { Response } from 'supertest';
import { HOST_RESOLUTION_DEADLINE_MS } from '@app/common';
import { ConfigValidationError, loadConfig } from '@app/config';
import { CONCURRENT_TARGET_CHECKS } from '../apps/api/src/webhooks/webhooks.module';
import { createTestApp, createUser, errorFields, errorMessagesFor, expectError, TestApp, TestUser, waitUntil } from './support';
import { FakeDnsServer, startFakeDnsServer } from './webhook-dns-server';

/** Room for a loaded 2-core machine on top of the deadline itself. */
const SLACK_MS = 1500;

/**
 * Webhook hosts resolved at create and update through WEBHOOK_DNS_SERVERS, off the thread pool
 * and within a deadline (docs/api.md#webhook-urls), against a DNS server of the test's own on 127.0.0.1.
 */
describe('Webhook hosts resolved through WEBHOOK_DNS_SERVERS', () => {
  let dns: FakeDnsServer;
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    dns = await startFakeDnsServer({
      records: {
        'public.hooks.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
        'loopback.hooks.test': ['127.0.0.1'],
        'v6-loopback.hooks.test': ['::1'],
        'metadata.hooks.test': ['169.254.169.254'],
        'half-private.hooks.test': ['93.184.216.34', 'fd00::1'],
        'no-address.hooks.test': [],
      },
      silentSuffixes: ['silent.test'],
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
  const asked = (name: string) => dns.questions.filter((question) => question.name === name).map((question) => question.type);

  it('accepts a name whose A and AAAA answers, from the configured server, are public', async () => {
    await create('https://public.hooks.test/in').expect(201);
    expect(asked('public.hooks.test')).toEqual(expect.arrayContaining(['A', 'AAAA']));
  });

  it.each(['loopback.hooks.test', 'v6-loopback.hooks.test', 'metadata.hooks.test', 'half-private.hooks.test', 'no-address.hooks.test', 'nowhere.hooks.test'])(
    'refuses %s with the one message that names no address',
    async (host) => {
      const res = await create(`https://${host}/in`);
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['url']);
      // Private, loopback and missing names read alike: the answer is no map of internal DNS.
      expect(errorMessagesFor(res, 'url')).toBe(
        'must point to a public host: one that resolves, and not to a loopback, private, link-local or reserved address',
      );
      expect(asked(host).length).toBeGreaterThan(0);
    },
  );

  it.each(['localhost', 'LOCALHOST.', 'api.localhost'])('refuses %s as loopback without asking DNS (RFC 6761)', async (host) => {
    const res = await create(`https://${host}/in`);
    expectError(res, 400, 'validation_error');
    expect(errorFields(res)).toEqual(['url']);
    expect(dns.questions.filter((question) => question.name.endsWith('localhost'))).toEqual([]);
  });

  it('answers a host whose DNS never answers with a url validation error at the deadline, on create and update', async () => {
    const timed = async (send: () => Promise<Response>) => {
      const started = performance.now();
      const res = await send();
      return { res, elapsed: performance.now() - started };
    };
    const { id } = (await create('https://public.hooks.test/in').expect(201)).body.data;
    for (const { res, elapsed } of [
      await timed(() => create('https://create.silent.test/in')),
      await timed(() => t.http.patch(`/v2/webhooks/${id}`).set(...auth()).send({ url: 'https://update.silent.test/in' })),
    ]) {
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['url']);
      expect(errorMessagesFor(res, 'url')).toMatch(/DNS answers within 2 seconds/);
      expect(elapsed).toBeGreaterThanOrEqual(HOST_RESOLUTION_DEADLINE_MS * 0.9);
      expect(elapsed).toBeLessThan(HOST_RESOLUTION_DEADLINE_MS + SLACK_MS);
    }
    expect(asked('create.silent.test').length).toBeGreaterThan(0);
    expect(asked('update.silent.test').length).toBeGreaterThan(0);
  });

  it('keeps logins fast while webhook hosts wait on a DNS server that never answers', async () => {
    const user = await createUser(t.http);
    let settled = 0;
    const creates = Array.from({ length: CONCURRENT_TARGET_CHECKS }, (_, index) =>
      create(`https://stall-${index}.silent.test/in`).then((res) => {
        settled += 1;
        return res;
      }),
    );
    await waitUntil(() => (dns.questions.filter((question) => question.name.startsWith('stall-')).length >= CONCURRENT_TARGET_CHECKS ? true : undefined));
    for (let login = 0; login < 3; login++) {
      const started = performance.now();
      await t.http.post('/v2/auth/login').send({ email: user.email, password: user.password }).expect(200);
      expect(performance.now() - started).toBeLessThan(HOST_RESOLUTION_DEADLINE_MS / 2);
    }
    // The logins ran while every resolver was still waiting on DNS.
    expect(settled).toBe(0);
    for (const res of await Promise.all(creates)) expectError(res, 400, 'validation_error');
  });

  it('lets checks beyond the concurrency cap wait within the same deadline, then serves again', async () => {
    const started = performance.now();
    const burst = await Promise.all(
      Array.from({ length: CONCURRENT_TARGET_CHECKS + 4 }, (_, index) => create(`https://burst-${index}.silent.test/in`)),
    );
    expect(performance.now() - started).toBeLessThan(HOST_RESOLUTION_DEADLINE_MS + SLACK_MS);
    for (const res of burst) {
      expectError(res, 400, 'validation_error');
      expect(errorFields(res)).toEqual(['url']);
    }
    // Only the first few were resolving before the deadline; the others waited for a resolver.
    const askedBeforeDeadline = dns.questions.filter(
      (question) => question.name.startsWith('burst-') && question.receivedAt < started + HOST_RESOLUTION_DEADLINE_MS * 0.9,
    );
    expect(new Set(askedBeforeDeadline.map((question) => question.name)).size).toBe(CONCURRENT_TARGET_CHECKS);
    // Every resolver, cancelled at its deadline, went back to the pool and works.
    await create('https://public.hooks.test/again').expect(201);
  });
});

describe('WEBHOOK_DNS_SERVERS', () => {
  it('takes ip, ip:port and [ipv6]:port, comma-separated; unset means the system resolvers', () => {
    const config = loadConfig({ ...process.env, WEBHOOK_DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,[::1]:53,2606:4700:4700::1111' });
    expect(config.webhookDnsServers).toEqual(['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '2606:4700:4700::1111']);
    expect(loadConfig({ ...process.env, WEBHOOK_DNS_SERVERS: '' }).webhookDnsServers).toBeUndefined();
  });

  it.each(['dns.example.com', '127.0.0.1:0', '127.0.0.1:70000', '::1:53x', '1.1.1.1,,8.8.8.8', '[1.1.1.1]:53'])(
    'refuses %s at start, naming the variable',
    (servers) => {
      expect(() => loadConfig({ ...process.env, WEBHOOK_DNS_SERVERS: servers })).toThrow(ConfigValidationError);
      expect(() => loadConfig({ ...process.env, WEBHOOK_DNS_SERVERS: servers })).toThrow(/WEBHOOK_DNS_SERVERS/);
    },
  );
});
