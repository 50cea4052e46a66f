import type { RenderedPage } from '../../platform/pages/page-layout';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { ICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from './assets/console-assets';
import { csrfField } from './forms';
import { Html, html } from './html';

export type ConsoleSection = 'api-keys' | 'webhooks' | 'events' | 'oauth-clients' | 'organizations';

const SECTIONS: ReadonlyArray<{ section: ConsoleSection; label: string; path: string }> = [
  { section: 'api-keys', label: 'API keys', path: consolePaths.apiKeys },
  { section: 'webhooks', label: 'Webhooks', path: consolePaths.webhooks },
  { section: 'events', label: 'Events', path: consolePaths.events },
  { section: 'oauth-clients', label: 'OAuth clients', path: consolePaths.oauthClients },
  { section: 'organizations', label: 'Organizations', path: consolePaths.organizations },
];

export interface PageFrame {
  title: string;
  /** The signed-in user, for the header and its sign-out form; absent on the sign-in page. */
  user?: SignedInUser;
  section?: ConsoleSection;
  /** Something on the page is still under way (a pending delivery): the script reloads it until nothing is. */
  pending?: boolean;
}

/** How often a page with something pending is reloaded, in seconds. */
const PENDING_REFRESH_SECONDS = 3;

/** The mark the script looks for, and the sentence it shows (hidden without the script, which alone keeps it true). */
function pendingNote(frame: PageFrame): Html | null {
  if (!frame.pending) return null;
  return html`<p class="muted" data-refresh-seconds="${PENDING_REFRESH_SECONDS}" hidden>A delivery here is pending: this page refreshes itself every ${PENDING_REFRESH_SECONDS} seconds until none is, unless you are typing in a form.</p>`;
}

/**
 * The headers of every console page: script and styles only from the service's own files (none
 * inline), forms only to the service, never framed, never cached, no referrer.
 */
const CONSOLE_PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function header(frame: PageFrame): Html {
  const user = frame.user;
  const account = user
    ? html`<span class="who">${user.email}</span>
<form method="post" action="${consolePaths.signOut}">${csrfField(user)}<button type="submit">Sign out</button></form>`
    : null;
  const sections = user
    ? html`<nav class="sections" aria-label="Console sections"><ul>
${SECTIONS.map(({ section, label, path }) => html`<li><a href="${path}"${section === frame.section ? html` aria-current="page"` : null}>${label}</a></li>`)}
</ul></nav>`
    : null;
  return html`<header class="top"><div class="bar"><a class="brand" href="${consolePaths.apiKeys}">Developer console</a>${account}</div></header>
${sections}`;
}

/** A whole console page: the frame (header, sections) around `body`, with its headers. */
export function consolePage(frame: PageFrame, body: Html, status = 200): RenderedPage {
  return {
    status,
    headers: CONSOLE_PAGE_HEADERS,
    html: html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Developer console</title>
<link rel="icon" type="image/svg+xml" href="${ICON_PATH}">
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<script src="${SCRIPT_PATH}" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
${header(frame)}
<main id="main" tabindex="-1">
${pendingNote(frame)}
${body}
</main>
</body>
</html>
`.markup,
  };
}
