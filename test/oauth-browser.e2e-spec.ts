import { createServer, Server } from 'node:http';
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, Browser, Page } from 'playwright-core';
import { createUser, PROJECT_ROOT, TestApp, TestUser } from './support';
import { ClientCommand, clientResult, runClient } from './oauth/oauth-client-process';
import { RegisteredClient, registerClient } from './oauth/oauth-flow';
import { createTestAppWithPublicUrl } from './oauth/oauth-test-app';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(PROJECT_ROOT, 'test-artifacts', 'screenshots');

/** A client's redirect URI on loopback: records what the browser brings back. */
class CallbackReceiver {
  private server?: Server;
  private waiting?: (url: URL) => void;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.waiting?.(new URL(req.url ?? '/', this.url));
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('You can close this window.');
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  next(): Promise<URL> {
    return new Promise((resolve) => (this.waiting = resolve));
  }

  async stop(): Promise<void> {
    this.server?.close();
    if (this.server) await once(this.server, 'close');
  }
}

/**
 * The authorization code flow as users meet it: the pages in headless Chromium, driven by the
 * keyboard, and `openid-client` with its defaults as the real OAuth client (docs/api.md#oauth), run
 * command by command in its own process (it is ES modules only).
 */
describe('OAuth in a browser, with openid-client', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let user: TestUser;
  let owner: TestUser;
  let receiver: CallbackReceiver;
  let registered: RegisteredClient;
  const consoleProblems: string[] = [];

  /** What openid-client is told: the server at its PUBLIC_URL, and `as` (the registered client unless said). */
  const oidcInput = (extra: Record<string, unknown>, as: RegisteredClient = registered): Record<string, unknown> => ({
    issuer: t.url,
    client_id: as.id,
    client_secret: as.client_secret,
    redirect_uri: receiver.url,
    ...extra,
  });
  const oidc = (command: ClientCommand, extra: Record<string, unknown> = {}, as?: RegisteredClient) =>
    clientResult('openid-client', command, oidcInput(extra, as));

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`);
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    t = await createTestAppWithPublicUrl();
    receiver = new CallbackReceiver();
    await receiver.start();
    owner = await createUser(t.http);
    user = await createUser(t.http);
    registered = await registerClient(t.http, owner, { redirect_uris: [receiver.url], scopes: ['read:resources', 'write:resources'] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await (await browser.newContext()).newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleProblems.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await t?.close();
  });

  /** An authorization URL with PKCE (S256) and state, as openid-client builds it. */
  async function authorizationUrl(as: RegisteredClient = registered): Promise<{ url: string; verifier: string; state: string }> {
    const { url, verifier, state } = await oidc('authorization-url', { scope: 'read:resources' }, as);
    return { url: String(url), verifier: String(verifier), state: String(state) };
  }

  it('discovers the server from its RFC 8414 metadata', async () => {
    const metadata = await oidc('discover');
    expect(metadata.token_endpoint).toBe(`${t.url}/oauth/token`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('logs in and allows with the keyboard alone, then exchanges the code with PKCE', async () => {
    const { url, verifier, state } = await authorizationUrl();
    await page.goto(url);
    await expect(page.getByRole('heading', { name: 'Log in to continue' }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'oauth-login.png'), fullPage: true });

    // The email field has the focus; Tab goes to the password, then to the button.
    await expect(page.locator(':focus').getAttribute('id')).resolves.toBe('email');
    await page.keyboard.type(user.email);
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus').getAttribute('id')).resolves.toBe('password');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus').textContent()).resolves.toBe('Log in');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: /Allow Acme dashboard/ }).waitFor();
    await expect(page.getByText('See your resources').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'oauth-consent.png'), fullPage: true });

    const arrival = receiver.next();
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus').textContent()).resolves.toBe('Allow');
    await page.keyboard.press('Enter');
    const back = await arrival;

    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(t.url);
    const tokens = await oidc('code-grant', { callback_url: back.href, verifier, state });
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.scope).toBe('read:resources');

    const list = await fetch(`${t.url}/v2/resources`, { headers: { Authorization: `Bearer ${String(tokens.access_token)}` } });
    expect(list.status).toBe(200);

    const refreshed = await oidc('refresh', { refresh_token: tokens.refresh_token });
    expect(refreshed.access_token).toMatch(/^oat_/);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const reuse = await runClient('openid-client', 'refresh', oidcInput({ refresh_token: tokens.refresh_token }));
    expect(reuse).toMatchObject({ ok: false, error: { error: 'invalid_grant' } });

    await expect(oidc('introspect', { token: refreshed.access_token })).resolves.toMatchObject({ active: false });
    expect(consoleProblems).toEqual([]);
  });

  it('revokes, then the token is inactive and refused', async () => {
    const tokens = await oidc('client-credentials', { scope: 'read:resources' });
    await expect(oidc('introspect', { token: tokens.access_token })).resolves.toMatchObject({ active: true, client_id: registered.id });
    await oidc('revoke', { token: tokens.access_token });
    await expect(oidc('introspect', { token: tokens.access_token })).resolves.toEqual({ active: false });
    const list = await fetch(`${t.url}/v2/resources`, { headers: { Authorization: `Bearer ${String(tokens.access_token)}` } });
    expect(list.status).toBe(401);
  });

  it('lets a public client through with PKCE, the session already open', async () => {
    const publicRegistered = await registerClient(t.http, owner, { confidential: false, redirect_uris: [receiver.url] });
    const { url, verifier, state } = await authorizationUrl(publicRegistered);
    await page.goto(url);
    const arrival = receiver.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const back = await arrival;
    const tokens = await oidc('code-grant', { callback_url: back.href, verifier, state }, publicRegistered);
    expect(tokens.access_token).toMatch(/^oat_/);
  });

  it('sends Deny back as access_denied, with state and iss', async () => {
    const { url, state } = await authorizationUrl();
    await page.goto(url);
    const arrival = receiver.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    const back = await arrival;
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(t.url);
  });

  it('shows an error page, and stays, for a redirect URI not registered', async () => {
    const url = new URL((await authorizationUrl()).url);
    url.searchParams.set('redirect_uri', 'http://127.0.0.1:1/elsewhere');
    const response = await page.goto(url.toString());
    expect(response?.status()).toBe(400);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('redirect URI');
    await page.screenshot({ path: join(SCREENSHOTS, 'oauth-error.png'), fullPage: true });
  });
});
