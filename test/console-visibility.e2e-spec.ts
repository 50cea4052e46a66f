import type { Browser, Page } from 'playwright-core';
import { createTestApp, createUser, TestApp, TestUser } from './support';
import { ConsoleTab, inspectPage, launchChromium, openConsoleTab, PAGE_FLOW_MS, signIn } from './console/console-browser';

/**
 * A viewer of an organization sees in the console exactly what the API shows them: the
 * organization, its members and roles, and its resources' events; none of the owner's keys,
 * webhooks, OAuth clients or private events, whose pages are the API's 404.
 */
describe('Developer console for a viewer of an organization', () => {
  let t: TestApp;
  let browser: Browser;
  let tab: ConsoleTab;
  let page: Page;
  let owner: TestUser;
  let viewer: TestUser;
  let organizationId: string;
  let ownerWebhookId: string;
  let privateEventId: string;

  async function apiData<T>(who: TestUser, path: string, body?: object): Promise<T> {
    const answer = await fetch(`${t.url}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { Authorization: `Bearer ${who.accessToken}`, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!answer.ok) throw new Error(`${path} answered ${answer.status}`);
    return ((await answer.json()) as { data: T }).data;
  }

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    t = await createTestApp();
    owner = await createUser(t.http);
    viewer = await createUser(t.http);
    ({ id: organizationId } = await apiData<{ id: string }>(owner, '/v2/organizations', { name: 'Difference Engines', slug: `engines-${Date.now().toString(36)}` }));
    await apiData(owner, `/v2/organizations/${organizationId}/members`, { user_id: viewer.id, role: 'viewer' });
    await apiData(owner, '/v2/resources', { name: 'Shared plan', organization_id: organizationId });
    const privateResource = await apiData<{ id: string }>(owner, '/v2/resources', { name: 'Private notes' });
    await apiData(owner, '/v2/api-keys', { name: 'Owner key', scopes: ['read:resources'] });
    ({ id: ownerWebhookId } = await apiData<{ id: string }>(owner, '/v2/webhooks', { url: 'https://hooks.example.com/owner', events: ['resource.created'] }));
    await apiData(owner, '/v2/oauth-clients', { name: 'Owner app', redirect_uris: ['https://app.example.com/cb'], scopes: ['read:resources'] });
    const ownerEvents = await apiData<{ id: string; data: { object: { id: string } } }[]>(owner, '/v2/events');
    privateEventId = ownerEvents.find((event) => event.data.object.id === privateResource.id)?.id ?? '';

    browser = await launchChromium();
    tab = await openConsoleTab(browser, t.url);
    page = tab.page;
    await signIn(page, t.url, viewer);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("shows none of the owner's API keys, webhooks or OAuth clients", async () => {
    await page.goto(`${t.url}/console/api-keys`);
    await expect(page.getByText('You have no API keys yet.').isVisible()).resolves.toBe(true);
    await page.goto(`${t.url}/console/webhooks`);
    await expect(page.getByText('You have no webhooks yet.').isVisible()).resolves.toBe(true);
    await inspectPage(page, 'webhooks-empty');
    await page.goto(`${t.url}/console/oauth-clients`);
    await expect(page.getByText('You have no OAuth clients yet.').isVisible()).resolves.toBe(true);
    await inspectPage(page, 'oauth-clients-empty');
  }, PAGE_FLOW_MS);

  it('lists exactly the events the API lists for the viewer', async () => {
    const fromApi = await apiData<{ id: string }[]>(viewer, '/v2/events');
    await page.goto(`${t.url}/console/events`);
    const links = await page.getByRole('table', { name: 'Events', exact: true }).getByRole('link').evaluateAll((anchors) =>
      anchors.map((anchor) => String(anchor.getAttribute('href'))),
    );
    expect(links).toEqual(fromApi.map((event) => `/console/events/${event.id}`));
    expect(links).not.toContain(`/console/events/${privateEventId}`);
    expect(privateEventId).toMatch(/^evt_/);
  });

  it("answers the owner's webhook and private event with the API's 404", async () => {
    for (const [path, apiPath] of [
      [`/console/webhooks/${ownerWebhookId}`, `/v2/webhooks/${ownerWebhookId}`],
      [`/console/events/${privateEventId}`, `/v2/events/${privateEventId}`],
    ]) {
      const fromApi = await fetch(`${t.url}${apiPath}`, { headers: { Authorization: `Bearer ${viewer.accessToken}` } });
      expect(fromApi.status).toBe(404);
      const answer = await page.goto(`${t.url}${path}`);
      expect(answer?.status()).toBe(404);
      await expect(page.getByRole('alert').textContent()).resolves.toContain(((await fromApi.json()) as { error: { message: string } }).error.message);
    }
  });

  it('shows the organization with its members and roles, as the API does', async () => {
    const members = await apiData<{ role: string; user: { username: string } }[]>(viewer, `/v2/organizations/${organizationId}/members`);
    await page.goto(`${t.url}/console/organizations`);
    await page.getByRole('link', { name: 'Difference Engines' }).click();
    const listed = page.getByRole('list', { name: 'Members' });
    await expect(listed.getByRole('heading').allTextContents()).resolves.toEqual(members.map((member) => member.user.username));
    await expect(listed.locator('.badge').allTextContents()).resolves.toEqual(['owner', 'viewer']);
    await inspectPage(page, 'organization-as-viewer');
    expect(tab.problems).toEqual([]);
  }, PAGE_FLOW_MS);
});
