import type { RenderedPage } from '../../platform/pages/page-layout';
import type { RotatedSecretView, WebhookView } from '../../webhooks/webhook.view';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { consolePage } from '../rendering/console-layout';
import { actionButton, csrfField, selectField, submissionField, textField } from '../rendering/forms';
import { html, Html } from '../rendering/html';
import { facts, oneTimeSecret, timestamp } from '../rendering/page-parts';

const ROTATE_FORM = 'rotate-secret';
const RECOVER_FORM = 'recover';
const FILTER_FORM = 'delivery-filter';

/** How long the previous secret keeps signing, as the rotation form offers it. */
const OVERLAPS = [
  { value: '86400', label: 'A day (the default)' },
  { value: '3600', label: 'An hour' },
  { value: '604800', label: 'Seven days' },
  { value: '0', label: 'No time: the previous secret stops at once' },
];

const STATUSES = [
  { value: '', label: 'Every status' },
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
];

/** Pause or resume, rotate the secret, and send failed deliveries again (docs/webhooks.md). */
export function lifecyclePanels(user: SignedInUser, webhook: WebhookView): Html {
  const pause =
    webhook.status === 'paused'
      ? html`<p>Deliveries are held while the webhook is paused.</p>${actionButton({ user, action: consolePaths.webhookResume(webhook.id), label: 'Resume deliveries' })}`
      : webhook.status === 'enabled'
        ? html`<p>Hold deliveries (say while your receiver is down); they are sent, oldest first, when you resume.</p>${actionButton({
            user,
            action: consolePaths.webhookPause(webhook.id),
            label: 'Pause deliveries',
            tone: 'secondary',
          })}`
        : null;
  const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 19) + 'Z';
  return html`${pause ? html`<h2>Pause</h2>${pause}` : null}
<h2 id="${RECOVER_FORM}-heading">Send failed deliveries again</h2>
<form method="post" action="${consolePaths.webhookRecover(webhook.id)}" class="panel" aria-labelledby="${RECOVER_FORM}-heading">
${csrfField(user)}
<p>Every failed delivery created since then is sent again, with a fresh schedule of attempts. A disabled webhook is enabled first.</p>
${textField({ form: RECOVER_FORM, name: 'since', label: 'Since', hint: 'As 2026-01-05T00:00:00Z (UTC), at most 14 days back.', value: since, required: true })}
<button type="submit">Send failed deliveries again</button>
</form>
<h2 id="${ROTATE_FORM}-heading">Rotate the signing secret</h2>
<form method="post" action="${consolePaths.webhookRotate(webhook.id)}" class="panel" aria-labelledby="${ROTATE_FORM}-heading">
${csrfField(user)}
${submissionField()}
<p>A new secret, shown once. Until the time chosen, every delivery is signed with both secrets, so that your receiver switches without a failed delivery.</p>
${selectField({ form: ROTATE_FORM, name: 'expires_in', label: 'The previous secret keeps signing for', choices: OVERLAPS })}
<button type="submit">Rotate the secret</button>
</form>`;
}

/** The timeline narrowed to one status, through the API's own filter. */
export function deliveryFilter(webhook: WebhookView, selected: string | undefined): Html {
  return html`<form method="get" action="${consolePaths.webhook(webhook.id)}" class="inline-form" aria-label="Filter deliveries">
${selectField({ form: FILTER_FORM, name: 'status', label: 'Show', choices: STATUSES, selected: selected ?? '' })}
<button type="submit" class="secondary">Show deliveries</button>
</form>`;
}

/** After a rotation's redirect: the new secret, shown this once, and until when the previous one signs too. */
export function rotatedSecretPage(user: SignedInUser, webhook: WebhookView, rotated: RotatedSecretView): RenderedPage {
  return consolePage(
    { title: 'Signing secret rotated', user, section: 'webhooks' },
    html`<h1>Signing secret rotated</h1>
<p>Copy the new secret now: this is the only time it is shown. Deliveries carry both signatures until the previous secret expires; switch your receiver before then.</p>
${oneTimeSecret('secret', rotated.secret ?? '', 'the new signing secret')}
${facts([
  ['Webhook', webhook.url],
  ['Previous secret signs until', timestamp(rotated.previous_secret_expires_at)],
])}
<p class="actions"><a class="button" href="${consolePaths.webhook(webhook.id)}">Back to the webhook</a></p>`,
  );
}
