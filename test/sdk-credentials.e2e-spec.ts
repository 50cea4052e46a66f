import { createRmsClient, RmsApiError, TokenPair, Transport, unwrap } from '@rms/client';
import { connectTierApi, createUser, ApiUnderTest, TestUser } from './support';

/** A fetch that remembers what it sent (method, path, credential headers), then sends it. */
function recordingFetch(): { fetch: Transport; sent: Array<{ call: string; authorization: string | null }> } {
  const sent: Array<{ call: string; authorization: string | null }> = [];
  const fetch: Transport = (request) => {
    sent.push({ call: `${request.method} ${new URL(request.url).pathname}`, authorization: request.headers.get('authorization') });
    return globalThis.fetch(request);
  };
  return { fetch, sent };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

/** The SDK's credentials against the real API (docs/api.md#authentication). */
describe('SDK credentials', () => {
  let t: ApiUnderTest;
  let user: TestUser;

  beforeAll(async () => {
    t = await connectTierApi();
    user = await createUser(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  /** The pair of a login whose access token the service refuses (as an expired one would be). */
  const refusedAccess = (refreshToken: string): TokenPair => ({
    access_token: 'eyJhbGciOiJIUzI1NiJ9.refused.token',
    refresh_token: refreshToken,
    token_type: 'Bearer',
    expires_in: 900,
  });

  it('refreshes once for concurrent 401s, sends each refused request again, and hands over the rotated pair', async () => {
    const { fetch, sent } = recordingFetch();
    const rotated: TokenPair[] = [];
    const rms = createRmsClient({
      baseUrl: t.url,
      fetch,
      credentials: { tokens: refusedAccess(user.refreshToken), onRefresh: (tokens) => rotated.push(tokens) },
    });
    const answers = await Promise.all(Array.from({ length: 6 }, () => unwrap(rms.api.GET('/v2/users/me'))));
    expect(answers.map((answer) => answer.data.id)).toEqual(Array(6).fill(user.id));
    expect(sent.filter((request) => request.call === 'POST /v2/auth/refresh')).toHaveLength(1);
    expect(rotated).toHaveLength(1);
    expect(rotated[0].refresh_token).not.toBe(user.refreshToken);

    // The new access token is used from then on; no further refresh.
    await rms.api.GET('/v2/users/me');
    expect(sent.at(-1)).toEqual({ call: 'GET /v2/users/me', authorization: `Bearer ${rotated[0].access_token}` });
    expect(sent.filter((request) => request.call === 'POST /v2/auth/refresh')).toHaveLength(1);
  });

  it('throws the 401 once the refresh token is refused, and does not try it again', async () => {
    const { fetch, sent } = recordingFetch();
    const rms = createRmsClient({ baseUrl: t.url, fetch, credentials: { tokens: refusedAccess('not-a-refresh-token') } });
    for (let call = 0; call < 2; call += 1) {
      const error = await rejection(rms.api.GET('/v2/users/me'));
      expect(error).toBeInstanceOf(RmsApiError);
      expect(error).toMatchObject({ status: 401, code: 'authentication_required', requestId: expect.stringMatching(/^req_/) });
    }
    expect(sent.map((request) => request.call)).toEqual(['GET /v2/users/me', 'POST /v2/auth/refresh', 'GET /v2/users/me']);
  });

  it('sends an API key as X-API-Key, acting with its scopes only', async () => {
    const owner = createRmsClient({ baseUrl: t.url, credentials: { bearerToken: user.accessToken } });
    const { data: created } = await unwrap(owner.api.POST('/v2/api-keys', { body: { name: 'sdk reader', scopes: ['read:resources'] } }));
    if (!created.key) throw new Error('the create answer carries the secret');
    const { data: resource } = await unwrap(owner.api.POST('/v2/resources', { body: { name: 'readable' } }));
    const reader = createRmsClient({ baseUrl: t.url, credentials: { apiKey: created.key } });
    const { data: listed } = await unwrap(reader.api.GET('/v2/resources', { params: { query: { fields: 'id' } } }));
    expect(listed.map((entry) => entry.id)).toContain(resource.id);
    const refused = await rejection(reader.api.POST('/v2/resources', { body: { name: 'not allowed' } }));
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_permissions' });
  });

  it('does not renew a bearer token given as is: its 401 is thrown', async () => {
    const { fetch, sent } = recordingFetch();
    const rms = createRmsClient({ baseUrl: t.url, fetch, credentials: { bearerToken: 'oat_revoked' } });
    expect(await rejection(rms.api.GET('/v2/users/me'))).toMatchObject({ status: 401, code: 'authentication_required' });
    expect(sent.map((request) => request.call)).toEqual(['GET /v2/users/me']);
  });

  it('fetches one client-credentials token for concurrent calls, and a new one after it is revoked', async () => {
    const owner = createRmsClient({ baseUrl: t.url, credentials: { bearerToken: user.accessToken } });
    const { data: client } = await unwrap(
      owner.api.POST('/v2/oauth-clients', {
        body: { name: 'sdk service', redirect_uris: ['https://app.example.com/callback'], scopes: ['read:resources'] },
      }),
    );
    if (!client.client_secret) throw new Error('a confidential client has a secret');
    const clientCredentials = { clientId: client.id, clientSecret: client.client_secret, scope: 'read:resources' };
    const { fetch, sent } = recordingFetch();
    const service = createRmsClient({ baseUrl: t.url, fetch, credentials: { clientCredentials } });
    await Promise.all(Array.from({ length: 4 }, () => service.api.GET('/v2/resources')));
    expect(sent.filter((request) => request.call === 'POST /oauth/token')).toHaveLength(1);
    const token = (sent.at(-1)?.authorization ?? '').replace('Bearer ', '');
    expect(token).toMatch(/^oat_/);

    const anonymous = createRmsClient({ baseUrl: t.url });
    await anonymous.api.POST('/oauth/revoke', {
      body: { token, client_id: clientCredentials.clientId, client_secret: clientCredentials.clientSecret },
      bodySerializer: (body) => new URLSearchParams(body),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    await service.api.GET('/v2/resources');
    expect(sent.slice(-3).map((request) => request.call)).toEqual(['GET /v2/resources', 'POST /oauth/token', 'GET /v2/resources']);
    expect(sent.at(-1)?.authorization).not.toBe(`Bearer ${token}`);
  });
});
