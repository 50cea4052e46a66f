import type { Browser, Page } from 'playwright-core';
import { launchChromium, PAGE_FLOW_MS } from './console/console-browser';
import { createTestApp, TestApp } from './support';

/**
 * `/docs` in Debian's Chromium: Redoc renders the served document, with each operation's curl
 * sample, under the page's CSP (nothing refused) and without a request leaving the service.
 */
describe('API reference at /docs, in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  /** Console errors (a CSP refusal among them), page errors and failed requests. */
  const problems: string[] = [];
  /** Requests to anywhere but the service (blob: URLs the page makes are the service's origin). */
  const elsewhere: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const origin = new URL(t.url).origin;
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`${request.url()} failed: ${request.failure()?.errorText ?? ''}`));
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== origin) elsewhere.push(request.url());
    });
  }, PAGE_FLOW_MS);
  afterAll(async () => {
    await browser.close();
    await t.close();
  });

  it(
    "renders an operation with its curl sample, with no CSP refusal and no request leaving the service",
    async () => {
      const { servers } = (await (await fetch(`${t.url}/openapi.json`)).json()) as { servers: Array<{ url: string }> };
      await page.goto(`${t.url}/docs#tag/Resources/operation/createResource`);
      await page.getByRole('heading', { name: 'Create a resource' }).waitFor({ timeout: 60_000 });
      const curl = page.locator('pre', { hasText: `curl -X POST '${servers[0].url}/v2/resources'` }).first();
      await curl.waitFor({ timeout: 30_000 });
      expect(await curl.textContent()).toContain('-H "Authorization: Bearer $RMS_ACCESS_TOKEN"');
      await expect(page.getByRole('tab', { name: 'SDK' }).first().isVisible()).resolves.toBe(true);
      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
    },
    PAGE_FLOW_MS,
  );
});
