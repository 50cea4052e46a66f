import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as AxeCore from 'axe-core';
import { chromium, Browser, BrowserContext, Page } from 'playwright-core';
import { PROJECT_ROOT, TestUser } from '../support';

// What the code run in the page sees; the project's types are Node's, which lack the browser's.
declare const axe: typeof AxeCore;
declare const document: { documentElement: { scrollWidth: number }; querySelectorAll(selector: string): ArrayLike<{ getBoundingClientRect(): { height: number } }> };
declare const navigator: { clipboard: { readText(): Promise<string> } };

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the console's screenshots go, one per page and width (git-ignored). */
export const CONSOLE_SCREENSHOTS = join(PROJECT_ROOT, 'test-artifacts', 'console');

const AXE_SOURCE = readFileSync(join(dirname(require.resolve('axe-core')), 'axe.min.js'), 'utf8');

/** The time of a test that checks pages (axe-core at two widths, screenshots), which is long on a busy machine. */
export const PAGE_FLOW_MS = 120_000;

/** The console's widths: a laptop, and the narrowest phone it must stay readable on. */
const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 360, height: 740 };

/** Debian's Chromium, headless, as the other browser suites run it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /** Errors the page reported (a CSP refusal among them) and requests that failed. */
  problems: string[];
}

/** A fresh browser profile at `origin`, allowed the clipboard, whose confirmation dialogs are accepted. */
export async function openConsoleTab(browser: Browser, origin: string): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport: WIDE });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // Chromium logs every answer of 400 or more this way; the pages that are such answers on purpose are
    // checked by their tests, and a missing file of the page is caught below.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of')) {
      problems.push(message.text());
    }
  });
  page.on('response', (response) => {
    const kind = response.request().resourceType();
    if ((kind === 'stylesheet' || kind === 'script') && response.status() !== 200) problems.push(`${response.url()} answered ${response.status()}`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('requestfailed', (request) => {
    // The browser drops the tab icon's request when the page is left before it loads (a quick back or forward).
    const leftEarly = request.url().endsWith('.svg') && request.failure()?.errorText === 'net::ERR_ABORTED';
    if (!leftEarly) problems.push(`${request.method()} ${request.url()} failed: ${request.failure()?.errorText ?? ''}`);
  });
  page.on('dialog', (dialog) => void dialog.accept());
  return { context, page, problems };
}

/** Signs in with the console's own form. */
export async function signIn(page: Page, origin: string, user: TestUser): Promise<void> {
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/console/sign-in');
}

/** The text the page put on the clipboard. */
export function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<Violation[]> {
  // Evaluated through the debugging protocol, which the page's CSP does not govern: the page itself allows no inline script.
  if (!(await page.evaluate(() => typeof axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(() => axe.run({ resultTypes: ['violations'] }));
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
}

/**
 * Checks the page at both widths and keeps a screenshot of each (`<name>-1280.png`,
 * `<name>-360.png`): no serious or critical axe-core violation, at 360 px nothing wider than the
 * screen but the tables, which scroll in their own box, and each table row one line high (48 px at most).
 */
export async function inspectPage(page: Page, name: string): Promise<void> {
  for (const viewport of [WIDE, NARROW]) {
    await page.setViewportSize(viewport);
    expect({ page: name, width: viewport.width, violations: await seriousViolations(page) }).toEqual({ page: name, width: viewport.width, violations: [] });
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    const tallRows = await page.evaluate(() => Array.from(document.querySelectorAll('tbody tr'), (row) => Math.round(row.getBoundingClientRect().height)).filter((height) => height > 48));
    expect({ page: name, width: viewport.width, tallRows }).toEqual({ page: name, width: viewport.width, tallRows: [] });
    expect({ page: name, width: viewport.width, overflow: Math.max(0, scrollWidth - viewport.width) }).toEqual({ page: name, width: viewport.width, overflow: 0 });
    await page.screenshot({ path: join(CONSOLE_SCREENSHOTS, `${name}-${viewport.width}.png`), fullPage: true });
  }
  await page.setViewportSize(WIDE);
}

/** Reloads the page until `ready` says yes: a worker's delivery shows without a script on the page. */
export async function reloadUntil(page: Page, ready: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready()) return;
    if (Date.now() > deadline) throw new Error(`${page.url()} did not show what was awaited within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await page.reload();
  }
}
