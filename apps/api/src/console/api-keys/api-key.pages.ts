import type { FieldProblem } from '@app/common';
import type { ApiKeyView, CreatedApiKeyView } from '../../api-keys/api-key.view';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { SCOPE_CHOICES } from '../rendering/choices';
import { consolePage } from '../rendering/console-layout';
import { actionButton, choiceField, csrfField, problemSummary, submissionField, textField } from '../rendering/forms';
import { html, Html } from '../rendering/html';
import { dataTable, facts, noticeFor, offsetPager, oneTimeSecret, timestamp } from '../rendering/page-parts';

const FORM = 'new-key';
const LABELS = { name: 'Name', scopes: 'Scopes', expires_at: 'Expires at' };
const NOTICES = {
  revoked: 'The API key is revoked: it stopped working at once.',
  shown: "The new key's secret was shown once and is not shown again. If it was not copied, revoke the key and create another.",
  'secret-gone': 'That new key was shown already: it is shown only once. Roll the key again if you did not copy it.',
};
/** How long a rolled key keeps working, as the roll form offers it; each says what it is about, since the row has no room for a visible label. */
const ROLL_OVERLAPS = [
  { value: '86400', label: 'Old key: one more day' },
  { value: '3600', label: 'Old key: one more hour' },
  { value: '604800', label: 'Old key: seven more days' },
  { value: '0', label: 'Old key: stops at once' },
];

export interface ApiKeyForm {
  values: { name?: string; scopes: readonly string[]; expires_at?: string };
  problems: readonly FieldProblem[];
}

export interface ApiKeysPageInput {
  keys: readonly ApiKeyView[];
  meta: Record<string, unknown>;
  notice?: unknown;
  form?: ApiKeyForm;
}

function scopeList(scopes: readonly string[]): Html {
  return html`${scopes.map((scope, index) => html`${index > 0 ? ', ' : ''}<code>${scope}</code>`)}`;
}

function keyActions(user: SignedInUser, key: ApiKeyView): Html {
  return html`<div class="actions">${rollForm(user, key)}${actionButton({
    user,
    action: consolePaths.apiKeyRevoke(key.id),
    label: 'Revoke',
    labelSuffix: key.name,
    tone: 'danger',
    confirm: `Revoke the API key "${key.name}"? Anything using it stops working at once.`,
  })}</div>`;
}

/** Rolling: a new key with the same name and scopes, the old one working for the time chosen. */
function rollForm(user: SignedInUser, key: ApiKeyView): Html {
  const id = `roll-${key.id}-expires-in`;
  return html`<form method="post" action="${consolePaths.apiKeyRoll(key.id)}" class="row-form" aria-label="Roll ${key.name}">
${csrfField(user)}
${submissionField()}
<label for="${id}" class="visually-hidden">The old key keeps working for (${key.name})</label>
<select id="${id}" name="expires_in">${ROLL_OVERLAPS.map(({ value, label }) => html`<option value="${value}">${label}</option>`)}</select>
<button type="submit" class="secondary">Roll<span class="visually-hidden"> ${key.name}</span></button>
</form>`;
}

function keyTable(user: SignedInUser, keys: readonly ApiKeyView[]): Html {
  return dataTable(
    keys,
    [
      { label: 'Name', cell: (key) => html`<strong>${key.name}</strong>` },
      { label: 'Prefix', cell: (key) => html`<code>${key.prefix}</code>` },
      { label: 'Scopes', cell: (key) => scopeList(key.scopes) },
      { label: 'Created', cell: (key) => timestamp(key.created_at) },
      { label: 'Last used', cell: (key) => timestamp(key.last_used_at, 'Never') },
      { label: 'Expires', cell: (key) => timestamp(key.expires_at, 'Never') },
      { label: 'Actions', cell: (key) => keyActions(user, key) },
    ],
    'You have no API keys yet.',
    'Your API keys',
  );
}

export function apiKeysPage(user: SignedInUser, input: ApiKeysPageInput, status = 200): RenderedPage {
  const form = input.form ?? { values: { scopes: [] }, problems: [] };
  return consolePage(
    { title: 'API keys', user, section: 'api-keys' },
    html`<h1>API keys</h1>
<p class="lead">A key acts as you, with its scopes only, sent as the <code>X-API-Key</code> header. Its secret is shown once, when it is made.</p>
${noticeFor(input.notice, NOTICES)}
${keyTable(user, input.keys)}
${offsetPager(input.meta)}
<h2 id="${FORM}-heading">Create an API key</h2>
<form method="post" action="${consolePaths.apiKeys}" class="panel" aria-labelledby="${FORM}-heading">
${csrfField(user)}
${submissionField()}
${problemSummary(FORM, form.problems, LABELS)}
${textField({ form: FORM, name: 'name', label: LABELS.name, hint: 'To recognise the key by, 1-100 characters.', value: form.values.name, required: true })}
${choiceField({ form: FORM, name: 'scopes', label: LABELS.scopes, hint: 'What the key may do. Write does not include read.', kind: 'checkbox', choices: SCOPE_CHOICES, checked: form.values.scopes, problems: form.problems })}
${textField({ form: FORM, name: 'expires_at', label: LABELS.expires_at, hint: 'Optional: when the key stops working, as 2026-12-31T23:59:59Z (UTC), at most two years ahead. Empty: never.', value: form.values.expires_at, problems: form.problems })}
<button type="submit">Create API key</button>
</form>`,
    status,
  );
}

export function createdApiKeyPage(user: SignedInUser, key: CreatedApiKeyView): RenderedPage {
  return consolePage(
    { title: 'API key created', user, section: 'api-keys' },
    html`<h1>API key created</h1>
<p>Copy the key now: this is the only time it is shown. The service keeps only a hash of it.</p>
${oneTimeSecret('secret', key.key ?? '', `the API key ${key.name}`)}
${facts([
  ['Name', key.name],
  ['Prefix', html`<code>${key.prefix}</code>`],
  ['Scopes', scopeList(key.scopes)],
])}
<p class="actions"><a class="button" href="${consolePaths.apiKeys}">Back to API keys</a></p>`,
  );
}

/** After a roll's redirect: the new key, shown this once. */
export function rolledApiKeyPage(user: SignedInUser, key: CreatedApiKeyView): RenderedPage {
  return consolePage(
    { title: 'API key rolled', user, section: 'api-keys' },
    html`<h1>API key rolled</h1>
<p>Copy the new key now: this is the only time it is shown. The old key works until the time shown in the list, then stops.</p>
${oneTimeSecret('secret', key.key ?? '', `the new API key ${key.name}`)}
${facts([
  ['Name', key.name],
  ['Id', html`<code>${key.id}</code>`],
])}
<p class="actions"><a class="button" href="${consolePaths.apiKeys}">Back to API keys</a></p>`,
  );
}
