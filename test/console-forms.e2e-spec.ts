import type { Browser, Page } from 'playwright-core';
import { createTestApp, createUser, TestApp, TestUser } from './support';
import { ConsoleTab, inspectPage, launchChromium, openConsoleTab, PAGE_FLOW_MS, signIn } from './console/console-browser';
import { hiddenFields, sessionCookie } from './oauth/oauth-flow';

/** A create form of the console, as a person fills it in, and how the API counts what it made. */
interface CreateForm {
  name: string;
  list: string;
  fill(page: Page): Promise<void>;
  button: string;
  /** Where the created record is shown: the path after the redirect, with the record's id. */
  shownAt: RegExp;
  /** The one-time secret's prefix, for the forms that make one. */
  secretPrefix?: string;
  /** The path of the API's list of such records. */
  api: string;
}

/**
 * Every form of the console that changes something answers with a redirect (Post/Redirect/Get),
 * so that a reload, or going back and sending again, makes nothing twice; a new secret is shown on
 * one view only. In Debian's Chromium, as a person uses the console, with the records counted
 * through the API.
 */
describe('Developer console forms: each change made once, each secret shown once', () => {
  let t: TestApp;
  let browser: Browser;
  let tab: ConsoleTab;
  let page: Page;
  let user: TestUser;

  const bearer = (): { Authorization: string } => ({ Authorization: `Bearer ${user.accessToken}` });
  const countOf = async (path: string): Promise<number> =>
    ((await (await fetch(`${t.url}${path}`, { headers: bearer() })).json()) as { data: unknown[] }).data.length;

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    t = await createTestApp();
    user = await createUser(t.http);
    browser = await launchChromium();
    tab = await openConsoleTab(browser, t.url);
    page = tab.page;
    await signIn(page, t.url, user);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const FORMS: CreateForm[] = [
    {
      name: 'API key',
      list: '/console/api-keys',
      fill: async (form) => {
        await form.getByLabel('Name', { exact: true }).fill('Nightly export');
        await form.getByRole('checkbox', { name: /^read:resources/ }).check();
      },
      button: 'Create API key',
      shownAt: /^\/console\/api-keys\/key_[0-9A-Z]+\/created$/,
      secretPrefix: 'sk_test_',
      api: '/v2/api-keys',
    },
    {
      name: 'webhook',
      list: '/console/webhooks',
      fill: async (form) => {
        await form.getByLabel('URL').fill('https://127.0.0.1:9/orders');
        await form.getByLabel('resource.created').check();
      },
      button: 'Create webhook',
      shownAt: /^\/console\/webhooks\/wh_[0-9A-Z]+\/created$/,
      secretPrefix: 'whsec_',
      api: '/v2/webhooks',
    },
    {
      name: 'OAuth client',
      list: '/console/oauth-clients',
      fill: async (form) => {
        await form.getByLabel('Name', { exact: true }).fill('Reports dashboard');
        await form.getByLabel('Redirect URIs').fill('https://reports.example.com/callback');
        await form.getByRole('checkbox', { name: /^read:resources/ }).check();
      },
      button: 'Register client',
      shownAt: /^\/console\/oauth-clients\/cli_[0-9A-Z]+\/created$/,
      secretPrefix: 'ocs_',
      api: '/v2/oauth-clients',
    },
    {
      name: 'organization',
      list: '/console/organizations',
      fill: async (form) => {
        await form.getByLabel('Name', { exact: true }).fill('Difference Engines');
        await form.getByLabel('Slug').fill(`engines-${Date.now().toString(36)}`);
      },
      button: 'Create organization',
      shownAt: /^\/console\/organizations\/org_[0-9A-Z]+(\?notice=created)?$/,
      api: '/v2/organizations',
    },
  ];

  /** Sends the form by its button; the POST's own answer. */
  async function send(button: string): Promise<{ status: number; location: string | null }> {
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.getByRole('button', { name: button }).click(),
    ]);
    await page.waitForLoadState();
    return { status: answer.status(), location: await answer.headerValue('location') };
  }

  it.each(FORMS)('creates one $name through a reload, a going back and the same form sent again', async (form) => {
    const before = await countOf(form.api);
    await page.goto(`${t.url}${form.list}`);
    await form.fill(page);
    const hidden = await page
      .locator(`form[action="${form.list}"] input[type="hidden"]`)
      .evaluateAll((inputs: Array<{ name: string; value: string }>) => Object.fromEntries(inputs.map((input) => [input.name, input.value])));

    const answer = await send(form.button);
    expect(await countOf(form.api)).toBe(before + 1);
    const shownAt = new URL(page.url());
    let secret = '';
    if (form.secretPrefix) {
      secret = (await page.locator('#secret').textContent()) ?? '';
      expect(secret.startsWith(form.secretPrefix)).toBe(true);
    }

    // A reload asks for the page again, and sends nothing: the secret has had its one view.
    await page.reload();
    expect(await countOf(form.api)).toBe(before + 1);
    expect(answer).toEqual({ status: 303, location: expect.stringMatching(form.shownAt) });
    expect(shownAt.pathname).toMatch(form.shownAt);
    if (form.secretPrefix) {
      expect(shownAt.href).not.toContain(secret);
      expect(await page.content()).not.toContain(secret);
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/shown once/);
      await page.goto(shownAt.href);
      expect(await page.content()).not.toContain(secret);
    }

    // Back on the form, sent again with the token it had (as a restored page, or a second click, sends it).
    await page.goBack();
    await page.goto(`${t.url}${form.list}`);
    await form.fill(page);
    expect(hidden.submission).toEqual(expect.any(String));
    await page.locator(`form[action="${form.list}"] input[name="submission"]`).evaluate((input: { value: string }, first: string) => (input.value = first), hidden.submission);
    const again = await send(form.button);
    expect(again).toEqual({ status: 303, location: `${shownAt.pathname}${shownAt.search}` });
    if (form.secretPrefix) expect(await page.content()).not.toContain(secret);
    expect(await countOf(form.api)).toBe(before + 1);

    // History: back to the form page, forward to the record: GETs only, nothing made.
    await page.goBack();
    await page.goForward();
    expect(await countOf(form.api)).toBe(before + 1);
    expect(tab.problems).toEqual([]);
  }, PAGE_FLOW_MS);

  it('shows a new secret on a page that passes axe-core, with the secret out of the address', async () => {
    await page.goto(`${t.url}/console/webhooks`);
    await page.getByLabel('URL').fill('https://127.0.0.1:9/audited');
    await page.getByLabel('resource.updated').check();
    await send('Create webhook');
    const secret = (await page.locator('#secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    expect(page.url()).not.toContain(secret);
    await inspectPage(page, 'webhook-shown-once');
    await page.reload();
    await expect(page.getByRole('status').textContent()).resolves.toBe('The signing secret of a new webhook is shown once and is not shown again.');
    await inspectPage(page, 'webhook-secret-gone');
  }, PAGE_FLOW_MS);

  it('makes a second record from the form shown afresh: only the same form token is one sending', async () => {
    const before = await countOf('/v2/api-keys');
    for (const name of ['First of two', 'Second of two']) {
      await page.goto(`${t.url}/console/api-keys`);
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByRole('checkbox', { name: /^read:resources/ }).check();
      expect((await send('Create API key')).status).toBe(303);
    }
    expect(await countOf('/v2/api-keys')).toBe(before + 2);
  }, PAGE_FLOW_MS);

  it('refuses a create form without its one-time token, and gives the token back when the form is refused', async () => {
    const cookie = await sessionCookie(t.http, user);
    const listPage = await fetch(`${t.url}/console/api-keys`, { headers: { Cookie: cookie } });
    const fields = hiddenFields(await listPage.text());
    expect(fields.submission).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const post = (body: Record<string, string>): Promise<Response> =>
      fetch(`${t.url}/console/api-keys`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body),
      });
    const before = await countOf('/v2/api-keys');

    const withoutToken = await post({ csrf_token: fields.csrf_token, name: 'Untokened', scopes: 'read:resources' });
    expect(withoutToken.status).toBe(403);
    expect(await withoutToken.text()).toContain('This form has expired or did not come from the console');

    const refused = await post({ ...fields, name: 'No scopes' });
    expect(refused.status).toBe(400);
    const made = await post({ ...fields, name: 'Scoped', scopes: 'read:resources' });
    expect(made.status).toBe(303);
    const sentAgain = await post({ ...fields, name: 'Scoped', scopes: 'read:resources' });
    expect(sentAgain.status).toBe(303);
    expect(sentAgain.headers.get('location')).toBe(made.headers.get('location'));
    expect(await countOf('/v2/api-keys')).toBe(before + 1);

    // The secret is held for the session that made the key, and for one view.
    const location = made.headers.get('location') ?? '';
    const elsewhere = await fetch(`${t.url}${location}`, { redirect: 'manual', headers: { Cookie: await sessionCookie(t.http, user) } });
    expect(elsewhere.status).toBe(303);
    const shown = await fetch(`${t.url}${location}`, { redirect: 'manual', headers: { Cookie: cookie } });
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(await shown.text()).toMatch(/<code id="secret">sk_test_[^<]+<\/code>/);
    const second = await fetch(`${t.url}${location}`, { redirect: 'manual', headers: { Cookie: cookie } });
    expect({ status: second.status, location: second.headers.get('location') }).toEqual({ status: 303, location: '/console/api-keys?notice=shown' });
  });

  it('answers every form that changes or removes something with 303 See Other', async () => {
    const api = async <T>(path: string, body?: object): Promise<T> =>
      ((await (
        await fetch(`${t.url}${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { ...bearer(), 'Content-Type': 'application/json' },
          body: body ? JSON.stringify(body) : undefined,
        })
      ).json()) as { data: T }).data;
    const key = await api<{ id: string }>('/v2/api-keys', { name: 'To revoke', scopes: ['read:resources'] });
    const webhook = await api<{ id: string }>('/v2/webhooks', { url: 'https://127.0.0.1:9/kept', events: ['resource.created'] });
    const client = await api<{ id: string }>('/v2/oauth-clients', { name: 'To delete', redirect_uris: ['https://app.example.com/cb'], scopes: ['read:resources'] });
    const cookie = await sessionCookie(t.http, user);
    const { csrf_token } = hiddenFields(await (await fetch(`${t.url}/console/api-keys`, { headers: { Cookie: cookie } })).text());
    const forms: Array<[string, Record<string, string>, string]> = [
      [`/console/api-keys/${key.id}/revoke`, {}, '/console/api-keys?notice=revoked'],
      [`/console/webhooks/${webhook.id}`, { description: 'Kept', events: 'resource.created' }, `/console/webhooks/${webhook.id}?notice=saved`],
      [`/console/webhooks/${webhook.id}/enable`, {}, `/console/webhooks/${webhook.id}?notice=enabled`],
      [`/console/webhooks/${webhook.id}/test`, { event_type: 'resource.created' }, `/console/webhooks/${webhook.id}?notice=test-sent`],
      [`/console/webhooks/${webhook.id}/delete`, {}, '/console/webhooks?notice=deleted'],
      [`/console/oauth-clients/${client.id}/delete`, {}, '/console/oauth-clients?notice=deleted'],
      ['/console/sign-out', {}, '/console/sign-in?signed_out=1'],
    ];
    for (const [path, fields, location] of forms) {
      const answer = await fetch(`${t.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token, ...fields }),
      });
      expect({ path, status: answer.status, location: answer.headers.get('location') }).toEqual({ path, status: 303, location });
    }
  });
});
