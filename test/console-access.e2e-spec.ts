import { createTestApp, createUser, TestApp, TestUser } from './support';
import { hiddenFields, sessionCookie, setCookiePair } from './oauth/oauth-flow';

const EXPIRED_FORM = 'This form has expired or did not come from the console';

/**
 * The console's doors, without a browser: every page needs a session and sends a visitor to the
 * sign-in page, every form needs the token its page gave, and the API around the console is as
 * it was (its document, its envelope).
 */
describe('Developer console: sign-in, CSRF and the API around it', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    t = await createTestApp();
    user = await createUser(t.http);
  });
  afterAll(() => t.close());

  const get = (path: string, cookie?: string): Promise<Response> =>
    fetch(`${t.url}${path}`, { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} });
  const postForm = (path: string, fields: Record<string, string | string[]>, cookie?: string): Promise<Response> => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) body.append(name, item);
    return fetch(`${t.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}) },
      body,
    });
  };

  /** The sign-in page's form fields and the cookie of its pre-session. */
  async function signInForm(): Promise<{ fields: Record<string, string>; preSession: string }> {
    const page = await get('/console/sign-in');
    expect(page.status).toBe(200);
    return { fields: hiddenFields(await page.text()), preSession: setCookiePair(page.headers.getSetCookie(), 'rms_console_csrf') };
  }

  /** Signs in with the console's form; returns the session cookie. */
  async function signIn(who: TestUser = user): Promise<string> {
    const { fields, preSession } = await signInForm();
    const answer = await postForm('/console/sign-in', { ...fields, email: who.email, password: who.password }, preSession);
    expect(answer.status).toBe(303);
    return setCookiePair(answer.headers.getSetCookie(), 'rms_session');
  }

  /** The hidden fields a console page puts in its forms: the CSRF token, and a create form's one-time token. */
  async function formFields(cookie: string, path = '/console/api-keys'): Promise<Record<string, string>> {
    const page = await get(path, cookie);
    expect(page.status).toBe(200);
    return hiddenFields(await page.text());
  }

  /** The CSRF token a console page puts in its forms. */
  async function formToken(cookie: string, path = '/console/api-keys'): Promise<string> {
    return (await formFields(cookie, path)).csrf_token;
  }

  const apiKeys = async (): Promise<unknown[]> =>
    ((await (await fetch(`${t.url}/v2/api-keys`, { headers: { Authorization: `Bearer ${user.accessToken}` } })).json()) as { data: unknown[] }).data;

  it('sends a visitor of any page to the sign-in page, which leads back to it', async () => {
    for (const path of ['/console', '/console/api-keys', '/console/webhooks/wh_01JD3Q0F6K8W2M4N6P8R0T2V4X', '/console/events?type=resource.created', '/console/organizations']) {
      const answer = await get(path);
      expect({ path, status: answer.status, location: answer.headers.get('location') }).toEqual({
        path,
        status: 303,
        location: `/console/sign-in?${new URLSearchParams({ next: path }).toString()}`,
      });
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('sends a form sent without a session, or with a session that is not one, to the sign-in page', async () => {
    const withoutSession = await postForm('/console/api-keys', { name: 'Sneaky', scopes: 'read:resources' });
    expect(withoutSession.status).toBe(303);
    expect(withoutSession.headers.get('location')).toBe('/console/sign-in');
    const forged = await get('/console/api-keys', 'rms_session=ses_01JD3Q0F6K8W2M4N6P8R0T2V4X.forged');
    expect(forged.headers.get('location')).toBe('/console/sign-in?next=%2Fconsole%2Fapi-keys');
  });

  it('serves the sign-in page with a pre-session cookie, a strict CSP and no inline script or style', async () => {
    const page = await get('/console/sign-in?next=/console/webhooks');
    const html = await page.text();
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.getSetCookie().find((cookie) => cookie.startsWith('rms_console_csrf='))).toMatch(/; Path=\/; HttpOnly; (Secure; )?SameSite=Lax$/);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(hiddenFields(html)).toEqual({ csrf_token: expect.any(String), next: '/console/webhooks' });
  });

  it('refuses a sign-in form without its pre-session, or with a token issued for another, with a 403 page', async () => {
    const first = await signInForm();
    const second = await signInForm();
    const credentials = { email: user.email, password: user.password };
    const attempts = [
      await postForm('/console/sign-in', { ...first.fields, ...credentials }),
      await postForm('/console/sign-in', { ...first.fields, ...credentials }, second.preSession),
      await postForm('/console/sign-in', { ...first.fields, ...credentials, csrf_token: 'forged' }, first.preSession),
      await postForm('/console/sign-in', { next: '/console', ...credentials }, first.preSession),
    ];
    for (const answer of attempts) {
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await answer.text()).toContain(EXPIRED_FORM);
      expect(answer.headers.getSetCookie().some((cookie) => cookie.includes('rms_session='))).toBe(false);
    }
  });

  it('says so on the page, with 401, when the password is wrong; signs in and goes on when it is right', async () => {
    const { fields, preSession } = await signInForm();
    const wrong = await postForm('/console/sign-in', { ...fields, email: user.email, password: 'not it' }, preSession);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The email or password is incorrect.');

    const right = await postForm('/console/sign-in', { ...fields, next: '/console/webhooks', email: user.email, password: user.password }, preSession);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/console/webhooks');
    expect(setCookiePair(right.headers.getSetCookie(), 'rms_session')).toMatch(/^rms_session=ses_/);
  });

  describe('sign-up', () => {
    /** The sign-up page's hidden fields and the cookie of its pre-session. */
    async function signUpForm(): Promise<{ fields: Record<string, string>; preSession: string }> {
      const page = await get('/console/sign-up');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      return { fields: hiddenFields(await page.text()), preSession: setCookiePair(page.headers.getSetCookie(), 'rms_console_csrf') };
    }
    const suffix = (): string => Math.random().toString(36).slice(2, 10);

    it('shows each problem by its field with 400, keeping what was typed but the password, and makes no account', async () => {
      const { fields, preSession } = await signUpForm();
      const answer = await postForm('/console/sign-up', { ...fields, email: 'not-an-email', username: 'A', password: 'short-pw' }, preSession);
      expect(answer.status).toBe(400);
      const html = await answer.text();
      expect(html).toContain('Email must be a valid email address');
      expect(html).toContain('Username must be 3-30 characters of a-z, 0-9, _ and -');
      expect(html).toContain('Password must be 10-128 characters');
      expect(html).toMatch(/id="sign-up-email" name="email"[^>]* aria-invalid="true" type="email" value="not-an-email"/);
      expect(html).not.toContain('short-pw');
      expect(answer.headers.getSetCookie().some((cookie) => cookie.includes('rms_session='))).toBe(false);
    });

    it('creates the account through registration, signs the person in and answers 303 to the console', async () => {
      const name = `signup_${suffix()}`;
      const { fields, preSession } = await signUpForm();
      const answer = await postForm('/console/sign-up', { ...fields, email: `${name}@example.com`, username: name, password: 'a long enough password' }, preSession);
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/console/api-keys');
      const cookie = setCookiePair(answer.headers.getSetCookie(), 'rms_session');
      expect((await get('/console/api-keys', cookie)).status).toBe(200);
      const me = await fetch(`${t.url}/v2/users/me`, { headers: { Cookie: cookie } });
      expect(((await me.json()) as { data: object }).data).toMatchObject({ email: `${name}@example.com`, username: name, role: 'user', plan: 'free' });

      // The same email or username again is the API's 409, shown on their fields.
      const again = await signUpForm();
      const taken = await postForm('/console/sign-up', { ...again.fields, email: `${name}@example.com`, username: name, password: 'a long enough password' }, again.preSession);
      expect(taken.status).toBe(409);
      const html = await taken.text();
      expect(html).toContain('Email is already taken');
      expect(html).toContain('Username is already taken');
    });

    it('refuses a form without its pre-session or with a forged token, with a 403 page and no account', async () => {
      const { fields, preSession } = await signUpForm();
      const name = `forged_${suffix()}`;
      const account = { email: `${name}@example.com`, username: name, password: 'a long enough password' };
      for (const answer of [
        await postForm('/console/sign-up', { ...fields, ...account }),
        await postForm('/console/sign-up', { ...account, csrf_token: 'forged' }, preSession),
      ]) {
        expect(answer.status).toBe(403);
        expect(await answer.text()).toContain(EXPIRED_FORM);
      }
      const login = await fetch(`${t.url}/v2/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: account.email, password: account.password }) });
      expect(login.status).toBe(401);
    });

    it('sends a signed-in person on to the console', async () => {
      const answer = await get('/console/sign-up', await signIn());
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/console/api-keys');
    });
  });

  it('goes back only to console pages after sign-in', async () => {
    const { fields, preSession } = await signInForm();
    const answer = await postForm('/console/sign-in', { ...fields, next: '//evil.example/console', email: user.email, password: user.password }, preSession);
    expect(answer.headers.get('location')).toBe('/console/api-keys');
  });

  it("refuses a form without the session's CSRF token, or with a wrong one, with a 403 page that changes nothing", async () => {
    const cookie = await signIn();
    const key = { name: 'Forged', scopes: ['read:resources'] };
    // None, empty, made up, and the valid token of another session.
    for (const token of [undefined, '', 'forged', await formToken(await signIn())]) {
      const answer = await postForm('/console/api-keys', token === undefined ? key : { ...key, csrf_token: token }, cookie);
      expect(answer.status).toBe(403);
      expect(await answer.text()).toContain(EXPIRED_FORM);
    }
    const another = await postForm('/console/webhooks/wh_01JD3Q0F6K8W2M4N6P8R0T2V4X/delete', {}, cookie);
    expect(another.status).toBe(403);
    expect(await apiKeys()).toEqual([]);

    const created = await postForm('/console/api-keys', { ...key, ...(await formFields(cookie)) }, cookie);
    expect(created.status).toBe(303);
    expect(await (await get(created.headers.get('location') ?? '', cookie)).text()).toMatch(/<code id="secret">sk_test_[^<]+<\/code>/);
    expect(await apiKeys()).toEqual([expect.objectContaining({ name: 'Forged', scopes: ['read:resources'] })]);
  });

  it('checks forms with the API’s own rules and shows the problems by field', async () => {
    const cookie = await signIn();
    const answer = await postForm('/console/webhooks', { csrf_token: await formToken(cookie), url: 'http://hooks.example.com/in' }, cookie);
    expect(answer.status).toBe(400);
    const html = await answer.text();
    expect(html).toContain('URL must be an https:// URL');
    expect(html).toContain('Events must name at least one event kind');
    expect(html).toMatch(/id="new-webhook-url" name="url"[^>]* aria-describedby="new-webhook-url-hint new-webhook-url-problem" aria-invalid="true"/);

    const badPage = await get('/console/api-keys?page=0', cookie);
    expect(badPage.status).toBe(400);
    expect(await badPage.text()).toContain('page must be 1-');
  });

  it('takes the session of POST /v2/session/login as well, and ends it on sign-out for the API too', async () => {
    const cookie = await sessionCookie(t.http, user);
    expect((await get('/console/api-keys', cookie)).status).toBe(200);
    const out = await postForm('/console/sign-out', { csrf_token: await formToken(cookie) }, cookie);
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/console/sign-in?signed_out=1');
    expect((await fetch(`${t.url}/v2/users/me`, { headers: { Cookie: cookie } })).status).toBe(401);
    expect((await get('/console/api-keys', cookie)).status).toBe(303);
  });

  it("answers another user's webhook with the API's 404, as a page", async () => {
    const other = await createUser(t.http);
    const created = await fetch(`${t.url}/v2/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${other.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.example.com/in', events: ['resource.created'] }),
    });
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const fromApi = await fetch(`${t.url}/v2/webhooks/${id}`, { headers: { Authorization: `Bearer ${user.accessToken}` } });
    const { message } = ((await fromApi.json()) as { error: { message: string } }).error;

    const page = await get(`/console/webhooks/${id}`, await signIn());
    expect(page.status).toBe(404);
    expect(await page.text()).toContain(message);
  });

  it('leaves the API as it was: no console path in its document, JSON in its envelope', async () => {
    const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('console'))).toEqual([]);
    expect(Object.keys(document.paths)).toContain('/oauth/authorize');

    const me = await fetch(`${t.url}/v2/users/me`, { headers: { Authorization: `Bearer ${user.accessToken}` } });
    expect(me.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await me.json()).toEqual({ data: expect.objectContaining({ id: user.id }) });
    const missing = await fetch(`${t.url}/v2/console`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: expect.objectContaining({ code: 'not_found' }) });
  });

  it('serves its stylesheet, script and icon as files, kept for good, and nothing else there', async () => {
    const html = await (await get('/console/sign-in')).text();
    const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1] ?? '';
    const script = /<script src="([^"]+)" defer><\/script>/.exec(html)?.[1] ?? '';
    const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(html)?.[1] ?? '';
    for (const [path, type] of [
      [stylesheet, 'text/css; charset=utf-8'],
      [script, 'text/javascript; charset=utf-8'],
      [icon, 'image/svg+xml; charset=utf-8'],
    ]) {
      expect(path).toMatch(/^\/console\/assets\/console-[0-9a-f]{16}\.(css|js|svg)$/);
      const answer = await get(path);
      expect({ status: answer.status, type: answer.headers.get('content-type'), cache: answer.headers.get('cache-control') }).toEqual({
        status: 200,
        type,
        cache: 'public, max-age=31536000, immutable',
      });
    }
    expect((await get('/console/assets/console-0000000000000000.js')).status).toBe(404);
  });
});
