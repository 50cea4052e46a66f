import type { FieldProblem } from '@app/common';
import type { ApiKeyView, CreatedApiKeyView } from '../../api-keys/api-key.view';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { SCOPE_CHOICES } from '../rendering/choices';
import { consolePage } from '../rendering/console-layout';
import { actionButton, choiceField, csrfField, problemSummary, submissionField, textField } from '../rendering/forms';
import { html, Html } from '../rendering/html';
import { facts, noticeFor, offsetPager, oneTimeSecret, records, timestamp } from '../rendering/page-parts';

const FORM = 'new-key';
const LABELS = { name: 'Name', scopes: 'Scopes' };
const NOTICES = {
  revoked: 'The API key is revoked: it stopped working at once.',
  shown: "The new key's secret was shown once and is not shown again. If it was not copied, revoke the key and create another.",
};

export interface ApiKeyForm {
  values: { name?: string; scopes: readonly string[] };
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

function keyRecord(user: SignedInUser, key: ApiKeyView): Html {
  return html`<div class="record-head"><h3>${key.name}</h3></div>
${facts([
  ['Prefix', html`<code>${key.prefix}</code>`],
  ['Scopes', scopeList(key.scopes)],
  ['Created', timestamp(key.created_at)],
  ['Last used', timestamp(key.last_used_at, 'Never')],
])}
<div class="actions">${actionButton({
    user,
    action: consolePaths.apiKeyRevoke(key.id),
    label: 'Revoke',
    labelSuffix: key.name,
    tone: 'danger',
    confirm: `Revoke the API key "${key.name}"? Anything using it stops working at once.`,
  })}</div>`;
}

export function apiKeysPage(user: SignedInUser, input: ApiKeysPageInput, status = 200): RenderedPage {
  const form = input.form ?? { values: { scopes: [] }, problems: [] };
  return consolePage(
    { title: 'API keys', user, section: 'api-keys' },
    html`<h1>API keys</h1>
<p class="lead">A key acts as you, with its scopes only, sent as the <code>X-API-Key</code> header. Its secret is shown once, when it is made.</p>
${noticeFor(input.notice, NOTICES)}
${records(input.keys.map((key) => keyRecord(user, key)), 'You have no API keys yet.', 'Your API keys')}
${offsetPager(input.meta)}
<h2 id="${FORM}-heading">Create an API key</h2>
<form method="post" action="${consolePaths.apiKeys}" class="panel" aria-labelledby="${FORM}-heading">
${csrfField(user)}
${submissionField()}
${problemSummary(FORM, form.problems, LABELS)}
${textField({ form: FORM, name: 'name', label: LABELS.name, hint: 'To recognise the key by, 1-100 characters.', value: form.values.name, required: true })}
${choiceField({ form: FORM, name: 'scopes', label: LABELS.scopes, hint: 'What the key may do. Write does not include read.', kind: 'checkbox', choices: SCOPE_CHOICES, checked: form.values.scopes, problems: form.problems })}
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
