import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Request, Response } from 'express';

/**
 * The `/docs` page: Redoc's API reference, served by the service itself (no CDN), booted by a
 * script of ours that reads `/openapi.json`. Nothing on the page reaches another origin.
 */

const REDOC_BUNDLES = dirname(require.resolve('redoc'));
const REDOC_VERSION = (JSON.parse(readFileSync(join(REDOC_BUNDLES, '../package.json'), 'utf8')) as { version: string }).version;
/** The bundle's one remote asset: the logo of its "API docs by Redocly" link, which it hides when it does not load. */
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** The bundle's name carries its version, so that a browser keeps it until the package changes. */
export const REDOC_BUNDLE_PATH = `/docs/redoc-${REDOC_VERSION}.standalone.js`;
export const REFERENCE_BOOT_PATH = '/docs/reference.js';

/**
 * Scripts only from the service: no inline script, no eval. Two allowances, both for Redoc
 * (docs/decisions.md): 'unsafe-inline' styles, because styled-components writes its rules into a
 * `<style>` element at run time, which no hash can name; and blob: workers, because its search
 * index runs in a worker made from its own bundle. Fetches go to the service only.
 */
const API_REFERENCE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE_HEADERS = {
  'Content-Security-Policy': API_REFERENCE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** The page: an element naming the document, Redoc, and our script that starts it (the icon is empty, so the browser asks for none). */
function apiReferencePage(title: string, documentPath: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    '<link rel="icon" href="data:,">',
    '</head>',
    '<body>',
    `<div id="api-reference" data-document="${documentPath}"></div>`,
    `<script src="${REDOC_BUNDLE_PATH}"></script>`,
    `<script src="${REFERENCE_BOOT_PATH}"></script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Renders the document the page names. Each operation's `x-codeSamples` (curl and the SDK) show
 * beside it, curl first (its body is the payload sample, which is not repeated); required
 * fields come first, and the 200 and 201 answers are open.
 */
const REFERENCE_BOOT_SCRIPT = `'use strict';
(function () {
  var element = document.getElementById('api-reference');
  Redoc.init(element.dataset.document, {
    hideRequestPayloadSample: true,
    expandResponses: '200,201',
    requiredPropsFirst: true,
    sortRequiredPropsFirst: true,
    pathInMiddlePanel: true,
    hideHostname: false,
    jsonSamplesExpandLevel: 2,
    theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } } }
  }, element);
})();
`;

export function serveApiReferencePage(title: string, documentPath: string): (req: Request, res: Response) => void {
  const page = apiReferencePage(title, documentPath);
  return (_req, res) => {
    res.status(200).set({ ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8' }).send(page);
  };
}

export function serveReferenceBootScript(_req: Request, res: Response): void {
  res.status(200).set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }).send(REFERENCE_BOOT_SCRIPT);
}

/**
 * Redoc's standalone bundle (Redoc, React and its styles in one file), as the package ships it
 * but for its remote logo, which becomes an empty image: the page asks nothing of another origin.
 */
function readRedocBundle(): string {
  const bundle = readFileSync(join(REDOC_BUNDLES, 'redoc.standalone.js'), 'utf8');
  if (!bundle.includes(REDOC_REMOTE_LOGO)) throw new Error(`redoc ${REDOC_VERSION}: its bundle no longer names ${REDOC_REMOTE_LOGO}; check what it loads`);
  return bundle.replaceAll(REDOC_REMOTE_LOGO, 'data:,');
}

let redocBundle: string | undefined;

export function serveRedocBundle(_req: Request, res: Response): void {
  redocBundle ??= readRedocBundle();
  res
    .status(200)
    .set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' })
    .send(redocBundle);
}
