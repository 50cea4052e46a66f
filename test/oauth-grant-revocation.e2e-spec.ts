import { OAuthGrantRepository } from '../apps/api/src/oauth/oauth-grant.repository';
import { createTestApp, createUser, TestApp, TestUser } from './support';
import { consent, pkcePair, REDIRECT_URI, RegisteredClient, registerClient, sessionCookie } from './oauth/oauth-flow';

/**
 * Reuse detection under races (docs/api.md#oauth, RFC 9700 4.14): when two exchanges of one code, or
 * two refreshes of one token, run at once, the loser revokes the grant; that must hold for the
 * tokens the winner stores afterwards too.
 */
describe('OAuth grant revocation under races', () => {
  let t: TestApp;
  let user: TestUser;
  let client: RegisteredClient;
  let cookie: string;
  let grants: OAuthGrantRepository;

  beforeAll(async () => {
    t = await createTestApp();
    const owner = await createUser(t.http);
    user = await createUser(t.http);
    client = await registerClient(t.http, owner);
    cookie = await sessionCookie(t.http, user);
    grants = t.app.get(OAuthGrantRepository);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  const token = (form: Record<string, string>) =>
    t.http
      .post('/oauth/token')
      .type('form')
      .auth(client.id, client.client_secret ?? '')
      .send(form);

  async function codeExchange(): Promise<Record<string, string>> {
    const { verifier, challenge } = pkcePair();
    const query = { response_type: 'code', client_id: client.id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256' };
    const back = await consent(t.http, cookie, query);
    return { grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier };
  }

  /** The worst order: the winner stores its tokens only once the loser has revoked the grant. */
  function storeWinnerAfterLoserRevokes(): void {
    const insertTokens = grants.insertTokens.bind(grants);
    const revokeGrant = grants.revokeGrant.bind(grants);
    let revoked!: () => void;
    const loserRevoked = new Promise<void>((resolve) => (revoked = resolve));
    jest.spyOn(grants, 'revokeGrant').mockImplementationOnce(async (grantId) => {
      await revokeGrant(grantId);
      revoked();
    });
    jest.spyOn(grants, 'insertTokens').mockImplementationOnce(async (rows) => {
      await loserRevoked;
      await insertTokens(rows);
    });
  }

  /** After the race: every token issued is inactive and refused on /v2. */
  async function expectAllRevoked(answers: Array<{ status: number; body: Record<string, string> }>): Promise<void> {
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const winner = answers.find((answer) => answer.status === 200)?.body ?? {};
    for (const issued of [winner.access_token, winner.refresh_token]) {
      const introspection = await t.http.post('/oauth/introspect').type('form').auth(client.id, client.client_secret ?? '').send({ token: issued });
      expect(introspection.body).toEqual({ active: false });
    }
    expect((await t.http.get('/v2/resources').set('Authorization', `Bearer ${winner.access_token}`)).status).toBe(401);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: winner.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
  }

  it('revokes what the winner of two exchanges of one code stores after the loser revoked the grant', async () => {
    const form = await codeExchange();
    storeWinnerAfterLoserRevokes();
    await expectAllRevoked(await Promise.all([token(form), token(form)]));
  });

  it('revokes what the winner of two refreshes of one token stores after the loser revoked the grant', async () => {
    const first = await token(await codeExchange()).expect(200);
    const form = { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string };
    storeWinnerAfterLoserRevokes();
    await expectAllRevoked(await Promise.all([token(form), token(form)]));
    expect((await t.http.get('/v2/resources').set('Authorization', `Bearer ${first.body.access_token}`)).status).toBe(401);
  });

  it('leaves no token of the grant active whatever the order of two exchanges run at once', async () => {
    for (let round = 0; round < 5; round += 1) {
      const form = await codeExchange();
      await expectAllRevoked(await Promise.all([token(form), token(form)]));
    }
  });
});
