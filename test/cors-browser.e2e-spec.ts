import { createServer, Server } from 'node:http';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build, stop } from 'esbuild';
import { chromium, Browser, Page } from 'playwright-core';
import type * as RmsClientModule from '@rms/client';
import { createTestApp, createUser, PROJECT_ROOT, TestApp, TestUser } from './support';
import { RegisteredClient, registerClient } from './oauth/oauth-flow';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Browser globals the code run in the page uses; the project's types are Node's, which lack them.
declare const sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
declare const location: { href: string };
declare const window: { rms?: typeof RmsClientModule };

/** The SDK (libs/client) bundled for browsers, as an application would ship it. */
async function bundleSdk(): Promise<string> {
  try {
    const built = await build({ entryPoints: [join(PROJECT_ROOT, 'libs/client/src/index.ts')], bundle: true, format: 'esm', platform: 'browser', write: false });
    return built.outputFiles[0].text;
  } finally {
    // esbuild answers from a service process of its own, which would outlive the run.
    await stop();
  }
}

/**
 * Where a single-page application is served from: any path is the same page, which loads the
 * SDK from `/sdk.js` as `window.rms`; its other code comes from the test.
 */
class StaticSite {
  private readonly server: Server = createServer((req, res) => {
    if (req.url === '/sdk.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(this.sdk);
      return;
    }
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end('<!doctype html><meta charset="utf-8"><title>App</title><h1>App</h1><script type="module">import * as rms from "/sdk.js"; window.rms = rms;</script>');
  });
  origin = '';

  constructor(private readonly sdk: string) {}

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.close();
    await once(this.server, 'close');
  }
}

/** What the page's calls come back with; a fetch the browser refused is its error's name and message. */
type Outcome = { ok: true; status: number; body: unknown; requestId: string | null } | { ok: false; error: string };

/**
 * CORS in Chromium (docs/decisions.md): a single-page application served from another loopback
 * port, listed in CORS_ORIGINS, runs a public client's authorization code flow with PKCE against
 * the API through the SDK (libs/client, bundled for browsers by esbuild), then calls it with the
 * session cookie by `fetch`. A page of an unlisted origin is refused by the browser.
 */
describe('CORS in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let app: StaticSite;
  let stranger: StaticSite;
  let user: TestUser;
  let client: RegisteredClient;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`);
    }
    const sdk = await bundleSdk();
    app = new StaticSite(sdk);
    stranger = new StaticSite(sdk);
    await Promise.all([app.start(), stranger.start()]);
    t = await createTestApp({ env: { CORS_ORIGINS: app.origin } });
    const owner = await createUser(t.http);
    user = await createUser(t.http);
    client = await registerClient(t.http, owner, { confidential: false, redirect_uris: [`${app.origin}/callback`], scopes: ['read:users'] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await app?.stop();
    await stranger?.stop();
  });

  async function pageAt(origin: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => window.rms !== undefined);
    return page;
  }

  /** What a test asks the page's `fetch` for: plain values, as they cross into the page. */
  interface PageRequest {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    credentials?: 'include' | 'omit' | 'same-origin';
  }

  /** `fetch(url, init)` run by the page: the browser applies CORS, the test sees what the page would. */
  function fetchInPage(page: Page, url: string, init: PageRequest = {}): Promise<Outcome> {
    return page.evaluate(
      async ({ url, init }): Promise<Outcome> => {
        try {
          const res = await fetch(url, init);
          const text = await res.text();
          return { ok: true, status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown), requestId: res.headers.get('X-Request-ID') };
        } catch (error) {
          return { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` };
        }
      },
      { url, init },
    );
  }

  it('lets a listed origin run a public client with PKCE, then call the API with the token and with the session cookie', async () => {
    const page = await pageAt(app.origin);
    // The page makes the PKCE pair and the state with the SDK, keeps them, and sends the browser to authorize.
    const authorizationUrl = await page.evaluate(
      async ({ api, clientId, redirectUri }) => {
        const rms = window.rms as typeof RmsClientModule;
        const pkce = await rms.createPkcePair();
        const state = crypto.randomUUID();
        sessionStorage.setItem('pkce', JSON.stringify({ verifier: pkce.verifier, state }));
        return rms.authorizationUrl(api, { clientId, redirectUri, state, codeChallenge: pkce.challenge, scope: 'read:users' });
      },
      { api: t.url, clientId: client.id, redirectUri: `${app.origin}/callback` },
    );

    await page.goto(authorizationUrl);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${app.origin}/callback?**`);

    // Back on the application's own page: it exchanges the code and calls the API through the SDK.
    await page.waitForFunction(() => window.rms !== undefined);
    const result = await page.evaluate(
      async ({ api, clientId, redirectUri }) => {
        const rms = window.rms as typeof RmsClientModule;
        const { verifier, state } = JSON.parse(sessionStorage.getItem('pkce') ?? '{}') as { verifier: string; state: string };
        const back = new URL(location.href).searchParams;
        if (back.get('state') !== state) throw new Error('state mismatch');
        const tokens = await rms
          .createRmsClient({ baseUrl: api })
          .exchangeAuthorizationCode({ clientId, code: back.get('code') ?? '', codeVerifier: verifier, redirectUri });
        // Authorization is no CORS-safelisted header: this one goes through a preflight.
        const withToken = await rms.createRmsClient({ baseUrl: api, credentials: { bearerToken: tokens.access_token } }).api.GET('/v2/users/me');
        const withCookie = await fetch(`${api}/v2/users/me`, { credentials: 'include' });
        return {
          tokenType: tokens.token_type,
          accessToken: tokens.access_token,
          withToken: { status: withToken.response.status, id: withToken.data?.data.id, requestId: withToken.response.headers.get('X-Request-ID') },
          withCookie: { status: withCookie.status, body: (await withCookie.json()) as { data: { id: string } } },
        };
      },
      { api: t.url, clientId: client.id, redirectUri: `${app.origin}/callback` },
    );

    expect(result.tokenType).toBe('Bearer');
    expect(result.accessToken).toMatch(/^oat_/);
    expect(result.withToken.status).toBe(200);
    expect(result.withToken.id).toBe(user.id);
    // An exposed header, readable by the page.
    expect(result.withToken.requestId).toMatch(/^req_/);
    // The login on the authorization page left the API's session cookie, which /v2 takes from a listed origin.
    expect(result.withCookie.status).toBe(200);
    expect(result.withCookie.body.data.id).toBe(user.id);
    await page.context().close();
  });

  it('refuses a page of an unlisted origin: every fetch rejects with a TypeError', async () => {
    const page = await pageAt(stranger.origin);
    const preflighted = await fetchInPage(page, `${t.url}/v2/users/me`, { headers: { Authorization: `Bearer ${user.accessToken}` } });
    const simple = await fetchInPage(page, `${t.url}/.well-known/oauth-authorization-server`);
    const withCookie = await fetchInPage(page, `${t.url}/v2/users/me`, { credentials: 'include' });
    for (const outcome of [preflighted, simple, withCookie]) {
      expect(outcome).toEqual({ ok: false, error: expect.stringMatching(/^TypeError: Failed to fetch/) });
    }
    await page.context().close();
  });

  it('lets a listed page read the API token endpoint, but not introspection, which is for servers', async () => {
    const page = await pageAt(app.origin);
    const token = await fetchInPage(page, `${t.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', client_id: client.id, redirect_uri: `${app.origin}/callback`, code_verifier: 'x'.repeat(43) }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(token).toMatchObject({ ok: true, status: 400, body: { error: 'invalid_grant' } });
    const introspect = await fetchInPage(page, `${t.url}/oauth/introspect`, {
      method: 'POST',
      body: new URLSearchParams({ token: user.accessToken, client_id: client.id }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(introspect).toEqual({ ok: false, error: expect.stringMatching(/^TypeError/) });
    await page.context().close();
  });
});
