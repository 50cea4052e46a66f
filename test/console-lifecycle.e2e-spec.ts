import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import { createTestApp, createUser, TestApp, TestUser } from './support';
import { ConsoleTab, inspectPage, launchChromium, openConsoleTab, PAGE_FLOW_MS, signIn } from './console/console-browser';

/**
 * The lifecycle of keys and webhooks in the developer console, in Debian's Chromium (decisions
 * §14): expiry and rolling on the keys page; pause and resume, secret rotation, "send failed
 * deliveries again since ..." and the status filter on a webhook's page; the event log filtered
 * by type. Every form that changes something answers 303 (Post/Redirect/Get), and a new secret
 * is shown once, on the page the redirect leads to. Each page is checked with axe-core.
 */
describe('Developer console: lifecycle of keys and webhooks', () => {
  let t: TestApp;
  let db: DataSource;
  let browser: Browser;
  let tab: ConsoleTab;
  let page: Page;
  let user: TestUser;
  /** The status of every form the browser sent. */
  const formAnswers: Array<{ url: string; status: number }> = [];

  const api = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${t.url}${path}`, { ...init, headers: { Authorization: `Bearer ${user.accessToken}`, 'Content-Type': 'application/json' } });
  const apiData = async <T>(path: string, init?: RequestInit): Promise<T> => ((await (await api(path, init)).json()) as { data: T }).data;

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    t = await createTestApp();
    db = t.app.get(DataSource);
    user = await createUser(t.http, { db: t.db, plan: 'enterprise' });
    browser = await launchChromium();
    tab = await openConsoleTab(browser, t.url);
    page = tab.page;
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && response.request().resourceType() === 'document') {
        formAnswers.push({ url: response.url(), status: response.status() });
      }
    });
    await signIn(page, t.url, user);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expect(tab.problems).toEqual([]);
  });

  it('creates a key with an expiry, rolls it, and shows the new key once after the redirect', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 19) + 'Z';
    await page.goto(`${t.url}/console/api-keys`);
    await page.getByLabel('Name', { exact: true }).fill('Nightly export');
    await page.getByLabel('read:resources').check();
    await page.getByLabel('Expires at').fill(expiresAt);
    await page.getByRole('button', { name: 'Create API key' }).click();
    const oldSecret = (await page.locator('#secret').textContent()) ?? '';
    await page.getByRole('link', { name: 'Back to API keys' }).click();
    await expect(page.getByRole('table', { name: 'Your API keys' }).textContent()).resolves.toContain(expiresAt.replace('T', ' ').replace('Z', ' UTC'));
    await inspectPage(page, 'api-keys-expiry');

    formAnswers.length = 0;
    await page.getByLabel('The old key keeps working for').selectOption('3600');
    await page.getByRole('button', { name: 'Roll Nightly export' }).click();
    await page.getByRole('heading', { name: 'API key rolled' }).waitFor();
    expect(formAnswers).toEqual([{ url: expect.stringMatching(/\/console\/api-keys\/key_[0-9A-Z]+\/roll$/), status: 303 }]);
    const newSecret = (await page.locator('#secret').textContent()) ?? '';
    expect(newSecret).toMatch(/^sk_test_/);
    expect(newSecret).not.toBe(oldSecret);
    await inspectPage(page, 'api-key-rolled');
    for (const secret of [oldSecret, newSecret]) {
      expect((await fetch(`${t.url}/v2/resources`, { headers: { 'X-API-Key': secret } })).status).toBe(200);
    }
    const keys = await apiData<Array<{ name: string; expires_at: string | null }>>('/v2/api-keys');
    const expiries = keys.filter((key) => key.name === 'Nightly export').map((key) => key.expires_at);
    expect(expiries).toContain(null);
    expect(expiries.filter((at) => at !== null).map((at) => Math.round((new Date(at ?? 0).getTime() - Date.now()) / 60_000))).toEqual([60]);

    // A reload shows the secret no more: the page it led to says it was shown once.
    await page.reload();
    await expect(page.getByRole('status').textContent()).resolves.toContain('shown only once');
    expect(await page.content()).not.toContain(newSecret);
  }, PAGE_FLOW_MS);

  it('pauses and resumes a webhook, rotates its secret, and sends its failed deliveries again', async () => {
    const hook = await apiData<{ id: string; secret: string }>('/v2/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: 'https://hooks.example.com/in', events: ['resource.created'] }),
    });
    const failed = newId('dlv');
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, attempts, created_at)
       VALUES ($1, $2, $3, 'resource.created', '{}', 'failed', '[]', now() - interval '2 hours')`,
      [failed, hook.id, newId('evt')],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, attempts) VALUES ($1, $2, $3, 'resource.created', '{}', 'succeeded', '[]')`,
      [newId('dlv'), hook.id, newId('evt')],
    );
    formAnswers.length = 0;
    await page.goto(`${t.url}/console/webhooks/${hook.id}`);
    await inspectPage(page, 'webhook-lifecycle');

    await page.getByRole('button', { name: 'Pause deliveries' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('paused');
    expect((await apiData<{ status: string }>(`/v2/webhooks/${hook.id}`)).status).toBe('paused');
    await inspectPage(page, 'webhook-paused');
    await page.getByRole('button', { name: 'Resume deliveries' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('enabled again');
    expect((await apiData<{ status: string }>(`/v2/webhooks/${hook.id}`)).status).toBe('enabled');

    await page.getByLabel('Show').selectOption('failed');
    await page.getByRole('button', { name: 'Show deliveries' }).click();
    expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
    const timeline = page.getByRole('table', { name: 'Deliveries', exact: true });
    await expect(timeline.locator('tbody tr').count()).resolves.toBe(1);
    await expect(timeline.textContent()).resolves.toContain(failed);
    await inspectPage(page, 'webhook-failed-deliveries');

    await page.getByLabel('Since').fill(new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 19) + 'Z');
    await page.getByRole('button', { name: 'Send failed deliveries again' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('queued again');
    expect((await apiData<{ status: string }>(`/v2/webhooks/${hook.id}/deliveries/${failed}`)).status).toBe('pending');

    await page.getByLabel('The previous secret keeps signing for').selectOption('3600');
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByRole('heading', { name: 'Signing secret rotated' }).waitFor();
    const secret = (await page.locator('#secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    const [row] = await db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]);
    expect(row).toEqual({ secret, previous_secret: hook.secret });
    await inspectPage(page, 'webhook-secret-rotated');
    await page.reload();
    await expect(page.getByRole('status').textContent()).resolves.toContain('shown only once');

    expect(formAnswers.map((answer) => answer.status)).toEqual([303, 303, 303, 303]);
  }, PAGE_FLOW_MS);

  /** Sends the form at `action` with the one-time token it had at first, as a second click or a restored page does. */
  async function sendAgain(action: string, submission: string): Promise<{ status: number; location: string | null }> {
    const form = page.locator(`form[action="${action}"]`);
    await form.locator('input[name="submission"]').evaluate((input: { value: string }, first: string) => (input.value = first), submission);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      form.getByRole('button').click(),
    ]);
    await page.waitForLoadState();
    return { status: answer.status(), location: await answer.headerValue('location') };
  }

  it('rolls a key and rotates a secret once when the same form is sent again', async () => {
    const key = await apiData<{ id: string }>('/v2/api-keys', { method: 'POST', body: JSON.stringify({ name: 'Rolled once', scopes: ['read:resources'] }) });
    const roll = `/console/api-keys/${key.id}/roll`;
    await page.goto(`${t.url}/console/api-keys`);
    const rollToken = await page.locator(`form[action="${roll}"] input[name="submission"]`).inputValue();
    await page.locator(`form[action="${roll}"]`).getByRole('button').click();
    await page.getByRole('heading', { name: 'API key rolled' }).waitFor();
    const rolledAt = new URL(page.url()).pathname;
    expect(rolledAt).toMatch(/^\/console\/api-keys\/key_[0-9A-Z]+\/rolled$/);
    const rolledSecret = (await page.locator('#secret').textContent()) ?? '';

    await page.goto(`${t.url}/console/api-keys`);
    expect(await sendAgain(roll, rollToken)).toEqual({ status: 303, location: rolledAt });
    await expect(page.getByRole('status').textContent()).resolves.toContain('shown only once');
    expect(await page.content()).not.toContain(rolledSecret);
    const keys = await apiData<Array<{ name: string }>>('/v2/api-keys');
    expect(keys.filter((listed) => listed.name === 'Rolled once')).toHaveLength(2);

    const hook = await apiData<{ id: string; secret: string }>('/v2/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: 'https://hooks.example.com/once', events: ['resource.created'] }),
    });
    const rotate = `/console/webhooks/${hook.id}/rotate`;
    await page.goto(`${t.url}/console/webhooks/${hook.id}`);
    const rotateToken = await page.locator(`form[action="${rotate}"] input[name="submission"]`).inputValue();
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByRole('heading', { name: 'Signing secret rotated' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/webhooks/${hook.id}/rotated`);
    const secret = (await page.locator('#secret').textContent()) ?? '';

    await page.goto(`${t.url}/console/webhooks/${hook.id}`);
    expect(await sendAgain(rotate, rotateToken)).toEqual({ status: 303, location: `/console/webhooks/${hook.id}/rotated` });
    await expect(page.getByRole('status').textContent()).resolves.toContain('shown only once');
    const [row] = await db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]);
    expect(row).toEqual({ secret, previous_secret: hook.secret });
  }, PAGE_FLOW_MS);

  it('filters the event log through the API type filter', async () => {
    const created = await apiData<{ id: string }>('/v2/resources', { method: 'POST', body: JSON.stringify({ name: 'Typed' }) });
    await api(`/v2/resources/${created.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'Typed again' }) });
    await page.goto(`${t.url}/console/events?type=resource.updated`);
    const kinds = (await page.getByRole('table', { name: 'Events', exact: true }).getByRole('link').allTextContents()).map((link) => link.split(' ')[0]);
    expect(kinds.length).toBeGreaterThan(0);
    expect(new Set(kinds)).toEqual(new Set(['resource.updated']));
    await inspectPage(page, 'events-by-type');
  }, PAGE_FLOW_MS);
});
