import {
  createSuiteEnvironment,
  createTestApp,
  createUser,
  HttpsReceiver,
  RunningWorker,
  startBuiltWorker,
  startHttpsReceiver,
  SuiteEnvironment,
  TestApp,
  TestUser,
  waitUntil,
} from './support';

/**
 * The private-address guard at connection time (docs/api.md#webhook-urls): webhooks stored while private
 * targets were allowed, delivered by a worker that refuses them. The suite has its own
 * database, so its worker relays no other suite's events.
 */
describe('webhook delivery to private addresses, refused at connect time', () => {
  let suite: SuiteEnvironment;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let worker: RunningWorker;
  let owner: TestUser;

  beforeAll(async () => {
    suite = await createSuiteEnvironment('guard');
    Object.assign(process.env, suite.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startHttpsReceiver();
    t = await createTestApp();
    owner = await createUser(t.http);
    worker = await startBuiltWorker({
      ...suite.env,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
      NODE_EXTRA_CA_CERTS: receiver.certFile,
      WEBHOOK_RETRY_SCHEDULE_MS: '0,20,20,20,20',
      WEBHOOK_RELAY_INTERVAL_MS: '50',
    });
  }, 60000);

  afterAll(async () => {
    await worker?.terminate();
    await t?.close();
    await receiver?.close();
    await suite?.destroy();
  });

  const bearer = (): [string, string] => ['Authorization', `Bearer ${owner.accessToken}`];

  it.each([
    ['the name localhost', 'localhost', 'localhost'],
    ['an address literal', '127.0.0.1', 'ipv4-literal'],
    ['IPv4-compatible IPv6 (::/96)', '[::127.0.0.1]', 'ipv4-compatible'],
    ['IPv4-translated IPv6 (rfc6145)', '[::ffff:0:127.0.0.1]', 'rfc6145'],
    ['local-use NAT64 (RFC 8215)', '[64:ff9b:1::7f00:1]', 'nat64-local-use'],
    ['6to4 (RFC 3056)', '[2002:7f00:1::1]', '6to4'],
    ['Teredo (RFC 4380)', '[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'teredo'],
  ])('fails every attempt to %s with an error that names no address', async (_case, host, path) => {
    const created = await t.http
      .post('/v2/webhooks')
      .set(...bearer())
      .send({ url: `https://${host}:${receiver.port}/${path}`, events: ['user.updated'] })
      .expect(201);
    const hookId = created.body.data.id as string;
    await t.http.patch('/v2/users/me').set(...bearer()).send({ profile: { last_name: path } }).expect(200);
    const failed = await waitUntil(async () => {
      const rows = (await t.http.get(`/v2/webhooks/${hookId}/deliveries`).set(...bearer()).expect(200)).body.data;
      return rows[0]?.status === 'failed' ? rows[0] : undefined;
    });
    expect(failed.attempts).toHaveLength(5);
    for (const attempt of failed.attempts) {
      expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(/^not an allowed target: /) });
      // The owner reads this: what the host resolved to stays unsaid.
      expect(attempt.error).not.toMatch(/127\.0\.0\.1|::1|7f00/);
    }
    await t.http.delete(`/v2/webhooks/${hookId}`).set(...bearer()).expect(204);
    expect(receiver.received.filter((request) => request.url === `/${path}`)).toHaveLength(0);
  });
});
