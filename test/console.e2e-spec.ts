import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Browser, Page } from 'playwright-core';
import {
  createSuiteEnvironment,
  createTestApp,
  createUser,
  built,
  HttpsReceiver,
  PROJECT_ROOT,
  startHttpsReceiver,
  SuiteEnvironment,
  TestApp,
  TestUser,
  waitUntil,
} from './support';
import { clipboardText, ConsoleTab, inspectPage, launchChromium, openConsoleTab, PAGE_FLOW_MS, reloadUntil } from './console/console-browser';

// What the code run in the page sees; the project's types are Node's, which lack the browser's.
declare const document: { activeElement: { id: string; tagName: string; textContent: string | null } | null };
declare function getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string };

/**
 * The developer console as a developer meets it, in Debian's Chromium: sign in, API keys,
 * webhooks pointed at a real local HTTPS receiver with a real worker delivering, the event log,
 * OAuth clients and organizations. Each page is checked with axe-core and screenshotted at 1280
 * and 360 px. The suite has its own database: its worker trusts its receiver's certificate only.
 */
describe('Developer console in a browser', () => {
  let suite: SuiteEnvironment;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let worker: ChildProcess;
  let browser: Browser;
  let tab: ConsoleTab;
  let page: Page;
  let user: TestUser;
  let webhookId: string;

  const bearer = (): { Authorization: string } => ({ Authorization: `Bearer ${user.accessToken}` });
  const api = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${t.url}${path}`, { ...init, headers: { ...bearer(), 'Content-Type': 'application/json', ...(init.headers as Record<string, string> | undefined) } });
  /** The `data` of an API answer. */
  const apiData = async <T>(path: string, init?: RequestInit): Promise<T> => ((await (await api(path, init)).json()) as { data: T }).data;
  const receivedAt = (path: string): number => receiver.received.filter((request) => request.url === path).length;

  beforeAll(async () => {
    suite = await createSuiteEnvironment('console');
    Object.assign(process.env, suite.env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startHttpsReceiver();
    // /ok answers 200 with a body; /fail is down for good; /slow answers 200 after two and a half seconds.
    receiver.respond((request, res) => {
      if (request.url === '/fail') res.writeHead(500, { 'Content-Type': 'text/plain' }).end('down for maintenance');
      else if (request.url === '/slow') setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'), 2500);
      else res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
    t = await createTestApp();
    worker = spawn(process.execPath, [built('apps/worker/src/main.ts')], {
      cwd: PROJECT_ROOT,
      stdio: 'ignore',
      env: { ...process.env, NODE_EXTRA_CA_CERTS: receiver.certFile, WEBHOOK_RELAY_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE_MS: '0,20,20,20,20' },
    });
    user = await createUser(t.http);
    browser = await launchChromium();
    tab = await openConsoleTab(browser, t.url);
    page = tab.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (worker) {
      const exited = once(worker, 'exit');
      worker.kill('SIGTERM');
      await exited;
    }
    await t?.close();
    await receiver?.close();
    await suite?.destroy();
  });

  it('sends a visitor to the sign-in page, then signs in with the keyboard and goes on to the page asked for', async () => {
    await page.goto(`${t.url}/console/webhooks`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/console/webhooks');
    await inspectPage(page, 'sign-in');

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The email or password is incorrect.');
    await inspectPage(page, 'sign-in-refused');

    // The email field has the focus; Tab goes to the password, then to the button.
    await page.getByLabel('Email').focus();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('sign-in-password');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Sign in');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.url}/console/webhooks`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Webhooks');
  }, PAGE_FLOW_MS);

  it('is walked by the keyboard: a skip link first, focus always visible, real links between sections', async () => {
    await page.goto(`${t.url}/console/api-keys`);
    await page.keyboard.press('Tab');
    const skip = await page.evaluate(() => {
      const focused = document.activeElement;
      const style = focused ? getComputedStyle(focused) : null;
      return { text: focused?.textContent, outline: style ? `${style.outlineStyle} ${style.outlineWidth}` : null };
    });
    expect(skip).toEqual({ text: 'Skip to content', outline: 'solid 3px' });
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');

    await page.getByRole('link', { name: 'Events' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.url}/console/events`);
    await expect(page.getByRole('link', { name: 'Events' }).getAttribute('aria-current')).resolves.toBe('page');
  });

  it('creates an API key by keyboard, shows its secret once with a copy button, then revokes it', async () => {
    await page.goto(`${t.url}/console/api-keys`);
    await inspectPage(page, 'api-keys-empty');

    await page.getByLabel('Name', { exact: true }).fill('CI deploys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Scopes must name at least one scope');
    await inspectPage(page, 'api-keys-problems');

    // The name is kept; from it, Tab reaches the first scope, Space checks it, and Tab goes on to the button.
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('CI deploys');
    await page.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    while ((await page.evaluate(() => document.activeElement?.textContent)) !== 'Create API key') await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API key created' }).waitFor();
    const secret = (await page.locator('#secret').textContent()) ?? '';
    expect(secret).toMatch(/^sk_test_/);
    await inspectPage(page, 'api-key-created');

    await page.getByRole('button', { name: /^Copy/ }).click();
    // The page says so once the clipboard's write resolves, a moment after the click.
    await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor({ timeout: 5000 });
    await expect(page.getByRole('status').textContent()).resolves.toBe('Copied to the clipboard.');
    await expect(clipboardText(page)).resolves.toBe(secret);
    expect((await fetch(`${t.url}/v2/resources`, { headers: { 'X-API-Key': secret } })).status).toBe(200);

    await page.getByRole('link', { name: 'Back to API keys' }).click();
    expect(await page.content()).not.toContain(secret);
    await expect(page.getByRole('table', { name: 'Your API keys' }).getByRole('cell', { name: 'CI deploys', exact: true }).isVisible()).resolves.toBe(true);
    await inspectPage(page, 'api-keys');

    await page.getByRole('button', { name: 'Revoke CI deploys' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('The API key is revoked');
    await expect(page.getByText('You have no API keys yet.').isVisible()).resolves.toBe(true);
    expect((await fetch(`${t.url}/v2/resources`, { headers: { 'X-API-Key': secret } })).status).toBe(401);
  }, PAGE_FLOW_MS);

  it('creates a webhook at the local HTTPS receiver, sends a test event, watches its delivery and retries it', async () => {
    await page.goto(`${t.url}/console/webhooks`);
    await page.getByLabel('URL').fill(`https://127.0.0.1:${receiver.port}/ok`);
    await page.getByLabel('Description').fill('Orders service');
    await page.getByLabel('resource.created').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook created' }).waitFor();
    await expect(page.locator('#secret').textContent()).resolves.toMatch(/^whsec_/);
    await inspectPage(page, 'webhook-created');

    await page.getByRole('link', { name: 'Go to the webhook' }).click();
    webhookId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(webhookId).toMatch(/^wh_/);
    await inspectPage(page, 'webhook');

    const before = receivedAt('/ok');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('A test event is on its way');
    const timeline = page.getByRole('table', { name: 'Deliveries', exact: true });
    await reloadUntil(page, async () => (await timeline.getByText('Succeeded').count()) === 1);
    expect(receivedAt('/ok')).toBe(before + 1);
    await expect(timeline.textContent()).resolves.toMatch(/resource\.created.*Succeeded\s*1\s*HTTP 200/s);
    await expect(page.locator('dl.facts').textContent()).resolves.toMatch(/Success rate \(24 h\)\s*100%\s*1 of 1\s*Last delivery\s*Succeeded/);
    await inspectPage(page, 'webhook-timeline');

    await timeline.getByRole('link', { name: /resource\.created/ }).click();
    await page.getByRole('heading', { name: 'Delivery of resource.created' }).waitFor();
    await expect(page.getByRole('list', { name: 'Attempts' }).textContent()).resolves.toMatch(/Attempt 1.*HTTP 200/s);
    await expect(page.getByRole('region', { name: 'Response body of attempt 1' }).textContent()).resolves.toBe('ok');
    await expect(page.getByRole('region', { name: 'Request body' }).textContent()).resolves.toMatch(/^\{\n {2}"id": "evt_\w+",\n {2}"type": "resource\.created",/);
    await page.locator('summary', { hasText: 'Request headers of attempt 1' }).click();
    await expect(page.getByRole('region', { name: 'Request headers of attempt 1' }).textContent()).resolves.toMatch(/^webhook-signature: v1,/m);
    await expect(page.getByRole('region', { name: 'Response headers of attempt 1' }).textContent()).resolves.toMatch(/^content-type: text\/plain$/m);
    await expect(page.getByText('a sample event of a test').isVisible()).resolves.toBe(true);
    await inspectPage(page, 'delivery');

    await page.getByRole('button', { name: 'Retry this delivery' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('The delivery is queued again');
    await reloadUntil(page, async () => (await page.getByRole('heading', { name: 'Attempt 2' }).count()) === 1);
    expect(receivedAt('/ok')).toBe(before + 2);
    const [delivery] = await apiData<{ attempts: { status_code: number }[] }[]>(`/v2/webhooks/${webhookId}/deliveries`);
    expect(delivery.attempts.map((attempt) => attempt.status_code)).toEqual([200, 200]);
  }, PAGE_FLOW_MS);

  it('edits the URL, events and description of a webhook', async () => {
    await page.goto(`${t.url}/console/webhooks/${webhookId}`);
    const settings = page.getByRole('form', { name: 'Settings' });
    const saveAnswer = (): Promise<number> =>
      Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === `/console/webhooks/${webhookId}`),
        page.getByRole('button', { name: 'Save changes' }).click(),
      ]).then(([response]) => response.status());
    await expect(settings.getByLabel('URL').inputValue()).resolves.toBe(`https://127.0.0.1:${receiver.port}/ok`);
    await settings.getByLabel('URL').fill(`ftp://127.0.0.1:${receiver.port}/ok`);
    await settings.getByLabel('Description').fill('Orders and invoices');
    await settings.getByLabel('resource.created').uncheck();
    await expect(saveAnswer()).resolves.toBe(400);
    const problems = page.getByRole('alert');
    await expect(problems.textContent()).resolves.toContain('Events must name at least one event kind');
    await expect(problems.textContent()).resolves.toContain('URL must be an https:// URL');
    await expect(settings.getByLabel('URL').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(settings.getByLabel('URL').inputValue()).resolves.toBe(`ftp://127.0.0.1:${receiver.port}/ok`);
    await inspectPage(page, 'webhook-problems');

    await settings.getByLabel('URL').fill(`https://127.0.0.1:${receiver.port}/ok?v=2`);
    await settings.getByLabel('resource.created').check();
    await settings.getByLabel('resource.updated').check();
    await expect(saveAnswer()).resolves.toBe(303);
    await expect(page.getByRole('status').textContent()).resolves.toBe('Your changes are saved.');
    const saved = await apiData<object>(`/v2/webhooks/${webhookId}`);
    expect(saved).toMatchObject({
      url: `https://127.0.0.1:${receiver.port}/ok?v=2`,
      description: 'Orders and invoices',
      events: ['resource.created', 'resource.updated'],
    });
  }, PAGE_FLOW_MS);

  it('lists events by type, each with its payload and the deliveries it caused', async () => {
    const { id: resourceId } = await apiData<{ id: string }>('/v2/resources', { method: 'POST', body: JSON.stringify({ name: 'Console order <b>1</b>' }) });
    await api(`/v2/resources/${resourceId}`, { method: 'PATCH', body: JSON.stringify({ name: 'Console order, paid' }) });
    const events = await waitUntil(async () => {
      const listed = await apiData<{ id: string; type: string; data: { object: { id: string } } }[]>('/v2/events');
      const mine = listed.filter((event) => event.data.object.id === resourceId);
      return mine.length === 2 ? mine : undefined;
    });
    const createdEvent = events.find((event) => event.type === 'resource.created');

    await page.goto(`${t.url}/console/events`);
    await page.getByLabel('Event type').selectOption('resource.created');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('type') === 'resource.created');
    const listed = page.getByRole('table', { name: 'Events', exact: true });
    await expect(listed.getByRole('link').allTextContents()).resolves.toEqual([expect.stringMatching(/^resource\.created/)]);
    await inspectPage(page, 'events');

    await listed.getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: 'resource.created' }).waitFor();
    expect(page.url()).toBe(`${t.url}/console/events/${createdEvent?.id}`);
    await expect(page.getByRole('region', { name: 'Event payload' }).textContent()).resolves.toContain('"name": "Console order <b>1</b>"');
    const caused = page.getByRole('table', { name: 'Deliveries to your webhooks' });
    await reloadUntil(page, async () => (await caused.getByText('Succeeded').count()) === 1);
    await expect(caused.getByRole('link', { name: webhookId }).isVisible()).resolves.toBe(true);
    await inspectPage(page, 'event');

    // The delivery shows the body it sent, the payload with its markup as text.
    await caused.getByRole('link', { name: /resource\.created/ }).click();
    await page.getByRole('heading', { name: 'Delivery of resource.created' }).waitFor();
    await expect(page.getByRole('region', { name: 'Request body' }).textContent()).resolves.toContain('"name": "Console order <b>1</b>"');
    await expect(page.locator('main b').count()).resolves.toBe(0);
  }, PAGE_FLOW_MS);

  it("shows why a webhook was disabled, and enables it again", async () => {
    const { id: failing } = await apiData<{ id: string }>('/v2/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: `https://127.0.0.1:${receiver.port}/fail`, events: ['resource.deleted'] }),
    });
    const resource = await apiData<{ id: string }>('/v2/resources', { method: 'POST', body: JSON.stringify({ name: 'Short-lived' }) });
    await api(`/v2/resources/${resource.id}`, { method: 'DELETE' });
    const disabled = await waitUntil(async () => {
      const webhook = await apiData<{ status: string; disabled_reason: string }>(`/v2/webhooks/${failing}`);
      return webhook.status === 'disabled' ? webhook : undefined;
    }, 20_000);

    await page.goto(`${t.url}/console/webhooks/${failing}`);
    await expect(page.getByRole('heading', { name: 'Deliveries are stopped' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText(disabled.disabled_reason).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('table', { name: 'Deliveries', exact: true }).textContent()).resolves.toMatch(/Failed\s*5\s*HTTP 500/s);
    await inspectPage(page, 'webhook-disabled');

    await page.getByRole('button', { name: 'Enable the webhook' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('enabled again');
    await expect(page.getByRole('heading', { name: 'Deliveries are stopped' }).count()).resolves.toBe(0);
    expect(await apiData<object>(`/v2/webhooks/${failing}`)).toMatchObject({ status: 'enabled', disabled_reason: null });

    // The list gives each webhook's last day and newest delivery: the failing one's only delivery failed.
    await page.goto(`${t.url}/console/webhooks`);
    const rows = page.getByRole('table', { name: 'Your webhooks' }).getByRole('row');
    await expect(rows.filter({ hasText: '/fail' }).textContent()).resolves.toMatch(/Enabled\s*0%\s*0 of 1\s*Failed\s*\d{4}-/);
    await expect(rows.filter({ hasText: '/ok' }).textContent()).resolves.toMatch(/100%\s*\d+ of \d+\s*Succeeded/);
    await inspectPage(page, 'webhooks-list');
    // At 360 px the table is wider than the screen and scrolls in its own box; inspectPage found the page itself no wider.
    await page.setViewportSize({ width: 360, height: 740 });
    const box = page.getByRole('region', { name: 'Your webhooks, scrolls sideways' });
    const widths = await box.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
    expect(widths.scroll).toBeGreaterThan(widths.client);
    expect(widths.client).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 1280, height: 800 });
  }, PAGE_FLOW_MS);

  it('reloads a page by itself while a delivery on it is pending, and stops once none is', async () => {
    const { id: slow } = await apiData<{ id: string }>('/v2/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: `https://127.0.0.1:${receiver.port}/slow`, events: ['payment.failed'] }),
    });
    const { id: deliveryId } = await apiData<{ id: string }>(`/v2/webhooks/${slow}/test`, { method: 'POST', body: '{}' });
    await page.goto(`${t.url}/console/webhooks/${slow}/deliveries/${deliveryId}`);
    const note = page.locator('[data-refresh-seconds]');
    await note.waitFor({ state: 'visible' });
    await expect(note.textContent()).resolves.toContain('refreshes itself every 3 seconds');
    let loads = 0;
    page.on('load', () => (loads += 1));
    // No reload from the test: the page's script makes them, until the delivery has succeeded.
    await page.getByRole('heading', { name: 'Attempt 1' }).waitFor({ timeout: 20_000 });
    expect(loads).toBeGreaterThan(0);
    await expect(note.count()).resolves.toBe(0);
    await expect(page.getByRole('list', { name: 'Attempts' }).textContent()).resolves.toContain('HTTP 200');
    const settled = loads;
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(loads).toBe(settled);
    await inspectPage(page, 'delivery-settled');
  }, PAGE_FLOW_MS);

  it('registers an OAuth client whose secret is shown once, and deletes it', async () => {
    await page.goto(`${t.url}/console/oauth-clients`);
    await page.getByLabel('Name', { exact: true }).fill('Acme dashboard');
    await page.getByLabel('Redirect URIs').fill('https://app.example.com/callback\nhttp://127.0.0.1:8080/callback');
    await page.getByRole('checkbox', { name: /^read:resources/ }).check();
    await page.getByRole('button', { name: 'Register client' }).click();
    await page.getByRole('heading', { name: 'OAuth client registered' }).waitFor();
    await expect(page.locator('#secret').textContent()).resolves.toMatch(/^ocs_/);
    await inspectPage(page, 'oauth-client-created');

    await page.getByRole('link', { name: 'Back to OAuth clients' }).click();
    await inspectPage(page, 'oauth-clients');
    const [client] = await apiData<object[]>('/v2/oauth-clients');
    expect(client).toMatchObject({ name: 'Acme dashboard', confidential: true, redirect_uris: ['https://app.example.com/callback', 'http://127.0.0.1:8080/callback'] });

    await page.getByRole('button', { name: 'Delete Acme dashboard' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('The OAuth client is deleted');
    expect(await apiData<object[]>('/v2/oauth-clients')).toEqual([]);
  }, PAGE_FLOW_MS);

  it('lists organizations, with their members and roles', async () => {
    const member = await createUser(t.http);
    const slug = `console-${Date.now().toString(36)}`;
    const organization = await apiData<{ id: string }>('/v2/organizations', { method: 'POST', body: JSON.stringify({ name: 'Analytical Engines', slug }) });
    await api(`/v2/organizations/${organization.id}/members`, { method: 'POST', body: JSON.stringify({ user_id: member.id, role: 'viewer' }) });

    await page.goto(`${t.url}/console/organizations`);
    await inspectPage(page, 'organizations');
    await page.getByRole('link', { name: 'Analytical Engines' }).click();
    const members = page.getByRole('list', { name: 'Members' });
    await expect(members.getByRole('heading').allTextContents()).resolves.toEqual([user.username, member.username]);
    await expect(members.textContent()).resolves.toMatch(new RegExp(`${user.username}owner.*${member.username}viewer`, 's'));
    await inspectPage(page, 'organization');
  }, PAGE_FLOW_MS);

  it('answers another user’s webhook, and a form sent with a wrong token, with pages that say so', async () => {
    await page.goto(`${t.url}/console/webhooks/wh_01JD3Q0F6K8W2M4N6P8R0T2V4X`);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Webhook wh_01JD3Q0F6K8W2M4N6P8R0T2V4X was not found.');
    await inspectPage(page, 'not-found');

    await page.goto(`${t.url}/console/webhooks/${webhookId}`);
    await page.locator('form[action$="/delete"] input[name=csrf_token]').evaluate((input) => input.setAttribute('value', 'forged'));
    const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: 'Delete the webhook' }).click()]);
    expect(answer.status()).toBe(403);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('This form has expired or did not come from the console');
    await inspectPage(page, 'form-refused');
    expect((await api(`/v2/webhooks/${webhookId}`)).status).toBe(200);
  }, PAGE_FLOW_MS);

  it('deletes a webhook', async () => {
    await page.goto(`${t.url}/console/webhooks/${webhookId}`);
    await page.getByRole('button', { name: 'Delete the webhook' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('The webhook is deleted');
    await inspectPage(page, 'webhooks');
    expect((await api(`/v2/webhooks/${webhookId}`)).status).toBe(404);
  }, PAGE_FLOW_MS);

  it('signs out: the session ends, for the API too', async () => {
    const cookie = (await tab.context.cookies()).find((candidate) => candidate.name === 'rms_session');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('You have signed out.');
    expect((await fetch(`${t.url}/v2/users/me`, { headers: { Cookie: `rms_session=${cookie?.value}` } })).status).toBe(401);
    await page.goto(`${t.url}/console/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(tab.problems).toEqual([]);
  });

  it('signs a newcomer up from the sign-in page, with problems by field first, into the console; every page has its icon', async () => {
    const newcomer = await openConsoleTab(browser, t.url);
    try {
      const signUp = newcomer.page;
      await signUp.goto(`${t.url}/console/sign-in`);
      const icon = (await signUp.locator('link[rel=icon]').getAttribute('href')) ?? '';
      const served = await signUp.request.get(`${t.url}${icon}`);
      expect({ status: served.status(), type: served.headers()['content-type'] }).toEqual({ status: 200, type: 'image/svg+xml; charset=utf-8' });
      await signUp.getByRole('link', { name: 'Create one' }).click();
      await signUp.getByRole('heading', { name: 'Create an account' }).waitFor();
      const name = `newcomer_${Date.now().toString(36)}`;
      await signUp.getByLabel('Email').fill(`${name}@example.com`);
      await signUp.getByLabel('Username').fill('No Capitals');
      await signUp.getByLabel('Password').fill('long enough, this one');
      await signUp.getByRole('button', { name: 'Create account' }).click();
      await expect(signUp.getByRole('alert').textContent()).resolves.toContain('Username must be 3-30 characters');
      await expect(signUp.getByLabel('Email').inputValue()).resolves.toBe(`${name}@example.com`);
      await inspectPage(signUp, 'sign-up-problems');

      await signUp.getByLabel('Username').fill(name);
      await signUp.getByLabel('Password').fill('long enough, this one');
      await signUp.getByRole('button', { name: 'Create account' }).click();
      await signUp.waitForURL(`${t.url}/console/api-keys`);
      await expect(signUp.locator('.who').textContent()).resolves.toBe(`${name}@example.com`);
      await expect(signUp.getByText('You have no API keys yet.').isVisible()).resolves.toBe(true);
      expect(newcomer.problems).toEqual([]);
    } finally {
      await newcomer.context.close();
    }
  }, PAGE_FLOW_MS);
});
