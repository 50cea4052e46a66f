import type { EventPayload, FieldProblem } from '@app/common';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { DeliveryAttemptView, CreatedWebhookView, DeliveryView, WebhookHealthView, WebhookView } from '../../webhooks/webhook.view';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { EVENT_KIND_CHOICES } from '../rendering/choices';
import { consolePage } from '../rendering/console-layout';
import { actionButton, choiceField, csrfField, problemSummary, selectField, submissionField, textField } from '../rendering/forms';
import { html, Html } from '../rendering/html';
import { badge, dataTable, facts, noticeFor, offsetPager, oneTimeSecret, textBlock, timestamp } from '../rendering/page-parts';
import { deliveryFilter, lifecyclePanels } from './webhook-lifecycle.pages';

const NEW_FORM = 'new-webhook';
const EDIT_FORM = 'edit-webhook';
const TEST_FORM = 'test-webhook';
const LABELS = { url: 'URL', events: 'Events', description: 'Description', event_type: 'Event type' };

const LIST_NOTICES = { deleted: 'The webhook is deleted, and its deliveries with it.' };
const WEBHOOK_NOTICES = {
  saved: 'Your changes are saved.',
  enabled: 'The webhook is enabled again: new events are delivered to it.',
  'test-sent': 'A test event is on its way; its delivery shows in the timeline below.',
  paused: 'The webhook is paused: its deliveries are held, not sent, until you resume it.',
  resumed: 'The webhook is enabled again: its held deliveries are on their way, oldest first.',
  recovered: 'The failed deliveries of that window are queued again, each with a fresh schedule.',
  'secret-gone': 'That new secret was shown already: it is shown only once. Rotate again if you did not copy it.',
  shown: 'The signing secret of a new webhook is shown once and is not shown again.',
};
const DELIVERY_NOTICES = { retried: 'The delivery is queued again; the new attempt shows below once made.' };

export interface WebhookFormState {
  values: { url?: string; description?: string; events: readonly string[] };
  problems: readonly FieldProblem[];
}

function webhookStatus(webhook: WebhookView): Html {
  switch (webhook.status) {
    case 'enabled':
      return badge('Enabled', 'good');
    case 'paused':
      return badge('Paused', 'waiting');
    case 'disabled':
      return badge('Disabled', 'bad');
  }
}

function deliveryStatus(delivery: Pick<DeliveryView, 'status'>): Html {
  switch (delivery.status) {
    case 'succeeded':
      return badge('Succeeded', 'good');
    case 'failed':
      return badge('Failed', 'bad');
    case 'pending':
      return badge('Pending', 'waiting');
  }
}

/**
 * The share of the last day's finished deliveries that succeeded, rounded down so that one
 * failure never shows as 100%, with the counts it comes from.
 */
function successRate(health: WebhookHealthView | undefined): Html {
  if (!health || health.success_rate_24h === null) return html`<span class="muted">No finished deliveries</span>`;
  const percent = Math.floor(health.success_rate_24h * 1000) / 10;
  const tone = health.failed_24h === 0 ? 'good' : percent >= 90 ? 'waiting' : 'bad';
  return html`${badge(`${percent}%`, tone)} <span class="muted">${health.succeeded_24h} of ${health.succeeded_24h + health.failed_24h}</span>`;
}

function lastDelivery(health: WebhookHealthView | undefined): Html {
  if (!health?.last_delivery) return html`<span class="muted">None yet</span>`;
  return html`${deliveryStatus(health.last_delivery)} ${timestamp(health.last_delivery.created_at)}`;
}

/** A delivery the worker will still attempt on its own: pending and scheduled (a paused webhook's are held, unscheduled). */
export function underWay(delivery: DeliveryView): boolean {
  return delivery.status === 'pending' && delivery.next_attempt_at !== null;
}

/** What the receiver answered to an attempt, or why there was no answer. */
function answerOf(attempt: DeliveryAttemptView | undefined): string {
  if (!attempt) return 'No attempt yet';
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code}`;
  return `No answer${attempt.error ? `: ${attempt.error}` : ''}`;
}

function eventList(events: readonly string[]): Html {
  return html`${events.map((event, index) => html`${index > 0 ? ', ' : ''}<code>${event}</code>`)}`;
}

/** Deliveries as a table, newest first: what, how it went, when it goes again, and a retry; `withWebhook` names each one's webhook. */
export function deliveryTable(user: SignedInUser, deliveries: readonly DeliveryView[], empty: string, label: string, withWebhook = false): Html {
  return dataTable(
    deliveries,
    [
      {
        label: 'Event type',
        cell: (delivery) => html`<a href="${consolePaths.delivery(delivery.webhook_id, delivery.id)}">${delivery.event_type}<span class="visually-hidden"> delivery ${delivery.id}</span></a>`,
      },
      { label: 'Status', cell: deliveryStatus },
      ...(withWebhook
        ? [{ label: 'Webhook', cell: (delivery: DeliveryView) => html`<a href="${consolePaths.webhook(delivery.webhook_id)}"><code>${delivery.webhook_id}</code></a>` }]
        : []),
      { label: 'Attempts', cell: (delivery) => String(delivery.attempts.length) },
      { label: 'Response', cell: (delivery) => answerOf(delivery.attempts.at(-1)) },
      { label: 'Duration', cell: (delivery) => (delivery.attempts.length > 0 ? `${delivery.attempts.at(-1)?.duration_ms} ms` : '—') },
      { label: 'Next retry', cell: (delivery) => (delivery.status === 'pending' ? timestamp(delivery.next_attempt_at, 'Not scheduled') : 'None') },
      { label: 'Created', cell: (delivery) => timestamp(delivery.created_at) },
      {
        label: 'Actions',
        cell: (delivery) =>
          actionButton({ user, action: consolePaths.deliveryRetry(delivery.webhook_id, delivery.id), label: 'Retry', labelSuffix: `delivery ${delivery.id}`, tone: 'secondary' }),
      },
    ],
    empty,
    label,
  );
}

function webhookTable(webhooks: readonly WebhookView[], health: ReadonlyMap<string, WebhookHealthView>): Html {
  return dataTable(
    webhooks,
    [
      { label: 'URL', cell: (webhook) => html`<a href="${consolePaths.webhook(webhook.id)}">${webhook.url}</a>` },
      { label: 'Status', cell: webhookStatus },
      { label: 'Success (24 h)', cell: (webhook) => successRate(health.get(webhook.id)) },
      { label: 'Last delivery', cell: (webhook) => lastDelivery(health.get(webhook.id)) },
      { label: 'Events', cell: (webhook) => eventList(webhook.events) },
      { label: 'Description', cell: (webhook) => webhook.description ?? '—' },
      { label: 'Created', cell: (webhook) => timestamp(webhook.created_at) },
    ],
    'You have no webhooks yet.',
    'Your webhooks',
  );
}

export interface WebhooksPageInput {
  webhooks: readonly WebhookView[];
  /** How each webhook of the page is doing, by id. */
  health: ReadonlyMap<string, WebhookHealthView>;
  meta: Record<string, unknown>;
  notice?: unknown;
  form?: WebhookFormState;
}

export function webhooksPage(user: SignedInUser, input: WebhooksPageInput, status = 200): RenderedPage {
  const form = input.form ?? { values: { events: [] }, problems: [] };
  return consolePage(
    { title: 'Webhooks', user, section: 'webhooks' },
    html`<h1>Webhooks</h1>
<p class="lead">Each webhook receives the events it subscribes to, signed with its secret, at an https URL.</p>
${noticeFor(input.notice, LIST_NOTICES)}
${webhookTable(input.webhooks, input.health)}
${offsetPager(input.meta)}
<h2 id="${NEW_FORM}-heading">Create a webhook</h2>
<form method="post" action="${consolePaths.webhooks}" class="panel" aria-labelledby="${NEW_FORM}-heading">
${csrfField(user)}
${submissionField()}
${problemSummary(NEW_FORM, form.problems, LABELS)}
${textField({ form: NEW_FORM, name: 'url', label: LABELS.url, type: 'url', hint: 'An https URL whose host is public.', value: form.values.url, required: true, problems: form.problems })}
${textField({ form: NEW_FORM, name: 'description', label: LABELS.description, hint: 'Optional, for you.', value: form.values.description, problems: form.problems })}
${choiceField({ form: NEW_FORM, name: 'events', label: LABELS.events, kind: 'checkbox', choices: EVENT_KIND_CHOICES, checked: form.values.events, problems: form.problems })}
<button type="submit">Create webhook</button>
</form>`,
    status,
  );
}

export function createdWebhookPage(user: SignedInUser, webhook: CreatedWebhookView): RenderedPage {
  return consolePage(
    { title: 'Webhook created', user, section: 'webhooks' },
    html`<h1>Webhook created</h1>
<p>Copy the signing secret now: this is the only time it is shown. Check every delivery's signature with it.</p>
${oneTimeSecret('secret', webhook.secret ?? '', 'the signing secret')}
${facts([
  ['URL', webhook.url],
  ['Events', eventList(webhook.events)],
])}
<p class="actions"><a class="button" href="${consolePaths.webhook(webhook.id)}">Go to the webhook</a></p>`,
  );
}

export interface WebhookPageInput {
  webhook: WebhookView;
  health: WebhookHealthView | undefined;
  deliveries: readonly DeliveryView[];
  deliveriesMeta: Record<string, unknown>;
  /** The status the timeline shows, when narrowed to one. */
  deliveryStatus?: string;
  notice?: unknown;
  form?: WebhookFormState;
}

function disabledPanel(user: SignedInUser, webhook: WebhookView): Html | null {
  if (webhook.status !== 'disabled') return null;
  return html`<section class="panel" aria-labelledby="disabled-heading">
<h2 id="disabled-heading">Deliveries are stopped</h2>
<p class="alert">${webhook.disabled_reason ?? 'The webhook was disabled.'}</p>
<p>Enable it once the receiver answers again: new events are delivered to it from then on.</p>
${actionButton({ user, action: consolePaths.webhookEnable(webhook.id), label: 'Enable the webhook' })}
</section>`;
}

export function webhookPage(user: SignedInUser, input: WebhookPageInput, status = 200): RenderedPage {
  const { webhook } = input;
  const form = input.form ?? { values: { url: webhook.url, description: webhook.description ?? '', events: webhook.events }, problems: [] };
  return consolePage(
    // A page that answers a form is not reloaded: that would send the form again.
    { title: `Webhook ${webhook.url}`, user, section: 'webhooks', pending: !input.form && input.deliveries.some(underWay) },
    html`<p><a href="${consolePaths.webhooks}">All webhooks</a></p>
<h1>${webhook.url}</h1>
${noticeFor(input.notice, WEBHOOK_NOTICES)}
${facts([
  ['Status', webhookStatus(webhook)],
  ['Success rate (24 h)', successRate(input.health)],
  ['Last delivery', lastDelivery(input.health)],
  ['Id', html`<code>${webhook.id}</code>`],
  ['Created', timestamp(webhook.created_at)],
  ['Updated', timestamp(webhook.updated_at)],
])}
${disabledPanel(user, webhook)}
${lifecyclePanels(user, webhook)}
<h2 id="timeline-heading">Deliveries</h2>
${deliveryFilter(webhook, input.deliveryStatus)}
${deliveryTable(
  user,
  input.deliveries,
  input.deliveryStatus ? 'No deliveries in this status.' : 'No deliveries yet. Send a test event, or make a change it subscribes to.',
  'Deliveries',
)}
${offsetPager(input.deliveriesMeta)}
<h2 id="${TEST_FORM}-heading">Send a test event</h2>
<form method="post" action="${consolePaths.webhookTest(webhook.id)}" class="panel" aria-labelledby="${TEST_FORM}-heading">
${csrfField(user)}
<p>A sample event, sent once: never retried, and it never disables the webhook.</p>
${selectField({ form: TEST_FORM, name: 'event_type', label: LABELS.event_type, choices: webhook.events.map((kind) => ({ value: kind, label: kind })) })}
<button type="submit">Send test event</button>
</form>
<h2 id="${EDIT_FORM}-heading">Settings</h2>
<form method="post" action="${consolePaths.webhook(webhook.id)}" class="panel" aria-labelledby="${EDIT_FORM}-heading">
${csrfField(user)}
${problemSummary(EDIT_FORM, form.problems, LABELS)}
${textField({ form: EDIT_FORM, name: 'url', label: LABELS.url, type: 'url', hint: 'An https URL whose host is public. Deliveries not yet made go to the new one.', value: form.values.url, required: true, problems: form.problems })}
${textField({ form: EDIT_FORM, name: 'description', label: LABELS.description, hint: 'Leave empty to remove it.', value: form.values.description, problems: form.problems })}
${choiceField({ form: EDIT_FORM, name: 'events', label: LABELS.events, kind: 'checkbox', choices: EVENT_KIND_CHOICES, checked: form.values.events, problems: form.problems })}
<button type="submit">Save changes</button>
</form>
<h2>Delete</h2>
<p>Deleting the webhook deletes its deliveries too.</p>
${actionButton({ user, action: consolePaths.webhookDelete(webhook.id), label: 'Delete the webhook', tone: 'danger', confirm: `Delete the webhook ${webhook.url} and its deliveries?` })}`,
    status,
  );
}

export interface DeliveryPageInput {
  webhook: WebhookView;
  delivery: DeliveryView;
  /** The body every attempt sends, as stored. */
  body: string;
  /** The event delivered, when it is one of the stored events the user can see (a test sends a sample). */
  event: EventPayload | null;
  notice?: unknown;
}

/** Headers as they travel, a `name: value` line each. */
function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

/** The body a delivery sends, indented for reading when it is JSON (it always is, unless stored by hand). */
function requestBody(body: string): Html {
  let readable = body;
  try {
    readable = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // Not JSON: shown as it is.
  }
  return textBlock(readable, 'Request body');
}

/** The headers an attempt sent, folded away: they are long, and read only when checking a signature. */
function requestHeaders(attempt: DeliveryAttemptView, number: number): Html | null {
  // Attempts made before headers were recorded, and those that never sent a request, have none.
  if (!attempt.request_headers) return null;
  return html`<details><summary>Request headers<span class="visually-hidden"> of attempt ${number}</span></summary>
${textBlock(headerLines(attempt.request_headers), `Request headers of attempt ${number}`)}
</details>`;
}

function attemptRecord(attempt: DeliveryAttemptView, index: number): Html {
  const number = index + 1;
  return html`<div class="record-head"><h3>Attempt ${number}</h3>${
    attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300 ? badge('Succeeded', 'good') : badge('Failed', 'bad')
  }</div>
${facts([
  ['Attempted', timestamp(attempt.attempted_at)],
  ['Response', answerOf(attempt)],
  ['Duration', `${attempt.duration_ms} ms`],
])}
${attempt.response_headers ? html`<p class="muted">Response headers:</p>${textBlock(headerLines(attempt.response_headers), `Response headers of attempt ${number}`)}` : null}
${attempt.response_body ? html`<p class="muted">Response body (its first KiB):</p>${textBlock(attempt.response_body, `Response body of attempt ${number}`)}` : null}
${requestHeaders(attempt, number)}`;
}

export function deliveryPage(user: SignedInUser, input: DeliveryPageInput): RenderedPage {
  const { webhook, delivery } = input;
  const event = input.event
    ? html`<a href="${consolePaths.event(delivery.event_id)}"><code>${delivery.event_id}</code></a>`
    : html`<code>${delivery.event_id}</code> (a sample event of a test, not in the event log)`;
  return consolePage(
    { title: `Delivery ${delivery.id}`, user, section: 'webhooks', pending: underWay(delivery) },
    html`<p><a href="${consolePaths.webhook(webhook.id)}">Back to ${webhook.url}</a></p>
<h1>Delivery of ${delivery.event_type}</h1>
${noticeFor(input.notice, DELIVERY_NOTICES)}
${facts([
  ['Status', deliveryStatus(delivery)],
  ['Event', event],
  ['Attempts', String(delivery.attempts.length)],
  ['Next retry', delivery.status === 'pending' ? timestamp(delivery.next_attempt_at, 'Not scheduled') : 'None'],
  ['Created', timestamp(delivery.created_at)],
  ['Id', html`<code>${delivery.id}</code>`],
])}
<div class="actions">${actionButton({ user, action: consolePaths.deliveryRetry(webhook.id, delivery.id), label: 'Retry this delivery' })}</div>
<h2>Request body</h2>
<p class="muted">What every attempt sends, signed: the event's payload.</p>
${requestBody(input.body)}
<h2 id="attempts-heading">Attempts</h2>
${
  delivery.attempts.length === 0
    ? html`<p class="empty">No attempt yet: the first one is on its way.</p>`
    : html`<ol class="timeline" aria-labelledby="attempts-heading">${delivery.attempts.map((attempt, index) => html`<li class="record">${attemptRecord(attempt, index)}</li>`)}</ol>`
}`,
  );
}
