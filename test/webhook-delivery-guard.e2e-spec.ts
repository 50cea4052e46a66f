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
 * The private-address guard at connection time (decisions 11): webhooks stored while private
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
    ['a name that resolves to 127.0.0.1', 'localhost', /^localhost resolves to 127\.0\.0\.1, a loopback/],
    ['an address literal', '127.0.0.1', /^127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback/],
  ])('fails every attempt to %s with an error naming the refused address', async (_case, host, error) => {
    const created = await t.http
      .post('/v2/webhooks')
      .set(...bearer())
      .send({ url: `https://${host}:${receiver.port}/${host}`, events: ['user.updated'] })
      .expect(201);
    const hookId = created.body.data.id as string;
    await t.http.patch('/v2/users/me').set(...bearer()).send({ profile: { last_name: host } }).expect(200);
    const failed = await waitUntil(async () => {
      const rows = (await t.http.get(`/v2/webhooks/${hookId}/deliveries`).set(...bearer()).expect(200)).body.data;
      return rows[0]?.status === 'failed' ? rows[0] : undefined;
    });
    expect(failed.attempts).toHaveLength(5);
    for (const attempt of failed.attempts) expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(error) });
    await t.http.delete(`/v2/webhooks/${hookId}`).set(...bearer()).expect(204);
    expect(receiver.received.filter((request) => request.url === `/${host}`)).toHaveLength(0);
  });
});
