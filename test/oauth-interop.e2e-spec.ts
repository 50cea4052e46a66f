import { DataSource } from 'typeorm';
import { hashSecret } from '../apps/api/src/auth/opaque-secret';
import { createUser, TestApp, TestUser } from './support';
import { ClientLibrary, clientResult, runClient } from './oauth/oauth-client-process';
import { authorizeInBrowser, REDIRECT_URI, registerClient } from './oauth/oauth-flow';
import { createTestAppWithPublicUrl } from './oauth/oauth-test-app';

/**
 * Real OAuth clients against the listening server (docs/api.md#oauth): openid-client 6 with its
 * defaults and with client_secret_basic, and oauth4webapi 3, each discovering the server from
 * its metadata. Basic credentials are form-encoded by both (`_` as `%5F`, `-` as `%2D`).
 */
describe('OAuth 2.0 with real clients', () => {
  let t: TestApp;
  let user: TestUser;
  let clientId: string;
  // The service's secrets are base62 after `ocs_`: this one has a `-` too, the other character clients encode.
  const clientSecret = 'ocs_interop-Secret_with-dashes-and_underscores0';

  beforeAll(async () => {
    t = await createTestAppWithPublicUrl();
    const owner = await createUser(t.http);
    user = await createUser(t.http);
    clientId = (await registerClient(t.http, owner)).id;
    await t.app.get(DataSource).query('UPDATE oauth_clients SET secret_hash = $1 WHERE id = $2', [hashSecret(clientSecret), clientId]);
  });
  afterAll(() => t.close());

  const resources = (accessToken: unknown): Promise<Response> =>
    fetch(`${t.url}/v2/resources`, { headers: { Authorization: `Bearer ${String(accessToken)}` } });

  // A refusal of Basic credentials is a 401 with a challenge, which the libraries report as such.
  const basicRefused = { status: 401, code: 'OAUTH_WWW_AUTHENTICATE_CHALLENGE' };
  describe.each<[string, ClientLibrary, Record<string, string>, Record<string, unknown>]>([
    ['openid-client with its defaults', 'openid-client', {}, { status: 400, error: 'invalid_client' }],
    ['openid-client with client_secret_basic', 'openid-client', { client_auth: 'client_secret_basic' }, basicRefused],
    ['oauth4webapi with client_secret_basic', 'oauth4webapi', {}, basicRefused],
  ])('%s', (_name, library, settings, refusal) => {
    const input = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      issuer: t.url,
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uri: REDIRECT_URI,
      ...settings,
      ...extra,
    });

    it('discovers the server at PUBLIC_URL, which says it sends iss', async () => {
      const metadata = await clientResult(library, 'discover', input());
      expect(metadata).toMatchObject({ issuer: t.url, token_endpoint: `${t.url}/oauth/token`, authorization_response_iss_parameter_supported: true });
    });

    it('runs the code flow with PKCE, then refreshes, introspects and revokes', async () => {
      const { url, verifier, state } = await clientResult(library, 'authorization-url', input({ scope: 'read:resources' }));
      const callback = await authorizeInBrowser(String(url), user);
      expect(callback.searchParams.get('iss')).toBe(t.url);

      const tokens = await clientResult(library, 'code-grant', input({ callback_url: callback.href, verifier, state }));
      expect(tokens).toMatchObject({ access_token: expect.stringMatching(/^oat_/), refresh_token: expect.stringMatching(/^ort_/), scope: 'read:resources' });
      expect((await resources(tokens.access_token)).status).toBe(200);

      const refreshed = await clientResult(library, 'refresh', input({ refresh_token: tokens.refresh_token }));
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      const active = await clientResult(library, 'introspect', input({ token: refreshed.access_token }));
      expect(active).toMatchObject({ active: true, client_id: clientId, sub: user.id, scope: 'read:resources' });

      await clientResult(library, 'revoke', input({ token: refreshed.refresh_token }));
      await expect(clientResult(library, 'introspect', input({ token: refreshed.access_token }))).resolves.toMatchObject({ active: false });
      expect((await resources(refreshed.access_token)).status).toBe(401);
    });

    it('gets a token by client credentials, and revokes it', async () => {
      const tokens = await clientResult(library, 'client-credentials', input({ scope: 'read:resources' }));
      expect(tokens).toMatchObject({ access_token: expect.stringMatching(/^oat_/), scope: 'read:resources' });
      expect(tokens.refresh_token).toBeUndefined();
      expect((await resources(tokens.access_token)).status).toBe(200);
      await clientResult(library, 'revoke', input({ token: tokens.access_token }));
      expect((await resources(tokens.access_token)).status).toBe(401);
    });

    it('is refused for a wrong secret', async () => {
      const outcome = await runClient(library, 'client-credentials', input({ client_secret: `${clientSecret}x`, scope: 'read:resources' }));
      expect(outcome).toMatchObject({ ok: false, error: refusal });
    });
  });

  it('lets a public client through with PKCE and no secret (oauth4webapi)', async () => {
    const publicClient = await registerClient(t.http, await createUser(t.http), { confidential: false });
    const input = { issuer: t.url, client_id: publicClient.id, redirect_uri: REDIRECT_URI };
    const { url, verifier, state } = await clientResult('oauth4webapi', 'authorization-url', { ...input, scope: 'read:resources' });
    const callback = await authorizeInBrowser(String(url), user);
    const tokens = await clientResult('oauth4webapi', 'code-grant', { ...input, callback_url: callback.href, verifier, state });
    expect(tokens.access_token).toMatch(/^oat_/);
  });
});
