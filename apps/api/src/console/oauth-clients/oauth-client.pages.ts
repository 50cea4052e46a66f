import type { FieldProblem } from '@app/common';
import type { CreatedOAuthClientView, OAuthClientView } from '../../oauth/clients/oauth-client.view';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { SCOPE_CHOICES } from '../rendering/choices';
import { consolePage } from '../rendering/console-layout';
import { actionButton, choiceField, csrfField, problemSummary, submissionField, textField } from '../rendering/forms';
import { html, Html } from '../rendering/html';
import { badge, facts, noticeFor, offsetPager, oneTimeSecret, records, timestamp } from '../rendering/page-parts';

const FORM = 'new-client';
const LABELS = { name: 'Name', redirect_uris: 'Redirect URIs', scopes: 'Scopes', confidential: 'Client type' };
const NOTICES = {
  deleted: 'The OAuth client is deleted: its codes and tokens stopped working at once.',
  shown: "A new client's secret was shown once and is not shown again. If it was not copied, delete the client and register another.",
};

export const CLIENT_TYPES = { confidential: 'confidential', public: 'public' } as const;

export interface OAuthClientForm {
  values: { name?: string; redirectUris?: string; scopes: readonly string[]; type: string };
  problems: readonly FieldProblem[];
}

function codeList(values: readonly string[]): Html {
  return html`${values.map((value, index) => html`${index > 0 ? html`<br>` : ''}<code>${value}</code>`)}`;
}

function clientType(client: OAuthClientView): Html {
  return client.confidential ? badge('Confidential') : badge('Public');
}

function clientRecord(user: SignedInUser, client: OAuthClientView): Html {
  return html`<div class="record-head"><h3>${client.name}</h3>${clientType(client)}</div>
${facts([
  ['Client id', html`<code>${client.id}</code>`],
  ['Redirect URIs', codeList(client.redirect_uris)],
  ['Scopes', codeList(client.scopes)],
  ['Created', timestamp(client.created_at)],
])}
<div class="actions">${actionButton({
    user,
    action: consolePaths.oauthClientDelete(client.id),
    label: 'Delete',
    labelSuffix: client.name,
    tone: 'danger',
    confirm: `Delete the OAuth client "${client.name}"? Its codes and tokens stop working at once.`,
  })}</div>`;
}

export interface OAuthClientsPageInput {
  clients: readonly OAuthClientView[];
  meta: Record<string, unknown>;
  notice?: unknown;
  form?: OAuthClientForm;
}

export function oauthClientsPage(user: SignedInUser, input: OAuthClientsPageInput, status = 200): RenderedPage {
  const form = input.form ?? { values: { scopes: [], type: CLIENT_TYPES.confidential }, problems: [] };
  return consolePage(
    { title: 'OAuth clients', user, section: 'oauth-clients' },
    html`<h1>OAuth clients</h1>
<p class="lead">Applications that act for users who allow them, through the authorization code flow with PKCE.</p>
${noticeFor(input.notice, NOTICES)}
${records(input.clients.map((client) => clientRecord(user, client)), 'You have no OAuth clients yet.', 'Your OAuth clients')}
${offsetPager(input.meta)}
<h2 id="${FORM}-heading">Register an OAuth client</h2>
<form method="post" action="${consolePaths.oauthClients}" class="panel" aria-labelledby="${FORM}-heading">
${csrfField(user)}
${submissionField()}
${problemSummary(FORM, form.problems, LABELS)}
${textField({ form: FORM, name: 'name', label: LABELS.name, hint: 'Shown to users on the consent page.', value: form.values.name, required: true, problems: form.problems })}
${textField({ form: FORM, name: 'redirect_uris', label: LABELS.redirect_uris, hint: 'One per line: https, or http on 127.0.0.1, [::1] or localhost; no fragment.', value: form.values.redirectUris, multiline: true, required: true, problems: form.problems })}
${choiceField({ form: FORM, name: 'scopes', label: LABELS.scopes, hint: 'The most it may be granted.', kind: 'checkbox', choices: SCOPE_CHOICES, checked: form.values.scopes, problems: form.problems })}
${choiceField({
  form: FORM,
  name: 'confidential',
  label: LABELS.confidential,
  kind: 'radio',
  choices: [
    { value: CLIENT_TYPES.confidential, label: 'Confidential: a server that keeps a secret' },
    { value: CLIENT_TYPES.public, label: 'Public: an app in a browser or on a device, without a secret' },
  ],
  checked: [form.values.type],
  problems: form.problems,
})}
<button type="submit">Register client</button>
</form>`,
    status,
  );
}

export function createdOAuthClientPage(user: SignedInUser, client: CreatedOAuthClientView): RenderedPage {
  const secret = client.client_secret
    ? html`<p>Copy the client secret now: this is the only time it is shown. The service keeps only a hash of it.</p>
${oneTimeSecret('secret', client.client_secret, `the client secret of ${client.name}`)}`
    : html`<p>A public client has no secret: it proves itself with PKCE at every authorization.</p>`;
  return consolePage(
    { title: 'OAuth client registered', user, section: 'oauth-clients' },
    html`<h1>OAuth client registered</h1>
${secret}
${facts([
  ['Client id', html`<code>${client.id}</code>`],
  ['Name', client.name],
  ['Redirect URIs', codeList(client.redirect_uris)],
  ['Scopes', codeList(client.scopes)],
])}
<p class="actions"><a class="button" href="${consolePaths.oauthClients}">Back to OAuth clients</a></p>`,
  );
}
