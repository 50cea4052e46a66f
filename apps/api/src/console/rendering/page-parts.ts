import type { OffsetMeta } from '@app/common';
import { Html, html, HtmlValue } from './html';

/** A time as UTC, readable, with the exact instant for machines. */
export function timestamp(iso: string | null, none = '—'): Html {
  if (!iso) return html`${none}`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>`;
}

export type Tone = 'good' | 'bad' | 'waiting' | 'plain';

/** A status in words; the colour only repeats them. */
export function badge(text: string, tone: Tone = 'plain'): Html {
  return html`<span class="badge${tone === 'plain' ? '' : ` ${tone}`}">${text}</span>`;
}

/** Label and value pairs of a record. */
export function facts(pairs: ReadonlyArray<readonly [string, HtmlValue]>): Html {
  return html`<dl class="facts">${pairs.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>`;
}

/** Records as cards, or a sentence when there are none. */
export function records(items: readonly Html[], empty: string, label: string): Html {
  if (items.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<ul class="records" aria-label="${label}">${items.map((item) => html`<li class="record">${item}</li>`)}</ul>`;
}

/** One column of a table: its heading, and what each row shows in it. */
export interface Column<T> {
  label: string;
  cell: (row: T) => HtmlValue;
}

/**
 * Records as a dense table, one row each, in a box that scrolls sideways when the screen is
 * narrower than the table (the page itself never does); a sentence when there are none.
 */
export function dataTable<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>, empty: string, label: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${label}, scrolls sideways"><table>
<caption class="visually-hidden">${label}</caption>
<thead><tr>${columns.map(({ label: heading }) => html`<th scope="col">${heading}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${columns.map(({ cell }) => html`<td>${cell(row)}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** Previous and next links of an offset list, as the service's own meta gives them. */
export function offsetPager(meta: Record<string, unknown>): Html | null {
  const page = meta as Partial<OffsetMeta>;
  if (!page.links || !page.total_pages || page.total_pages <= 1) return null;
  return html`<nav class="pages" aria-label="Pages">
${page.links.prev ? html`<a href="${page.links.prev}" rel="prev">Previous page</a>` : null}
<span>Page ${page.page ?? 1} of ${page.total_pages}</span>
${page.links.next ? html`<a href="${page.links.next}" rel="next">Next page</a>` : null}
</nav>`;
}

/** The message a redirect asked for with `?notice=`; only the page's own fixed messages are shown. */
export function noticeFor(notice: unknown, messages: Record<string, string>): Html | null {
  if (typeof notice !== 'string' || !Object.prototype.hasOwnProperty.call(messages, notice)) return null;
  return html`<p class="notice" role="status">${messages[notice]}</p>`;
}

/** A secret shown once, with a copy button the script shows and an announcement of the copy. */
export function oneTimeSecret(id: string, secret: string, label: string): Html {
  return html`<div class="secret"><code id="${id}">${secret}</code><button type="button" class="secondary" data-copy="${id}" hidden>Copy<span class="visually-hidden"> ${label}</span></button></div>
<span id="${id}-status" class="copy-status" role="status"></span>`;
}

/** JSON as people read it, in a block the keyboard can scroll. */
export function jsonBlock(value: unknown, label: string): Html {
  return html`<pre tabindex="0" role="region" aria-label="${label}"><code>${JSON.stringify(value, null, 2)}</code></pre>`;
}

/** Text as it came (an answer's body), in a block the keyboard can scroll. */
export function textBlock(text: string, label: string): Html {
  return html`<pre tabindex="0" role="region" aria-label="${label}"><code>${text}</code></pre>`;
}
