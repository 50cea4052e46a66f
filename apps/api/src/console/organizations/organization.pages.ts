import type { FieldProblem } from '@app/common';
import type { MemberView, OrganizationView } from '../../organizations/organization.view';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { consolePage } from '../rendering/console-layout';
import { csrfField, problemSummary, submissionField, textField } from '../rendering/forms';
import { html, Html } from '../rendering/html';
import { badge, facts, noticeFor, offsetPager, records, timestamp } from '../rendering/page-parts';

const FORM = 'new-organization';
const LABELS = { name: 'Name', slug: 'Slug' };
const NOTICES = { created: 'The organization is created, with you as its owner.' };

export interface OrganizationForm {
  values: { name?: string; slug?: string };
  problems: readonly FieldProblem[];
}

function organizationRecord(organization: OrganizationView): Html {
  return html`<div class="record-head"><h3><a href="${consolePaths.organization(organization.id)}">${organization.name}</a></h3></div>
${facts([
  ['Slug', html`<code>${organization.slug}</code>`],
  ['Created', timestamp(organization.created_at)],
])}`;
}

function memberRecord(member: MemberView): Html {
  return html`<div class="record-head"><h3>${member.user.username}</h3>${badge(member.role)}</div>
${facts([
  ['Email', member.user.email],
  ['User id', html`<code>${member.user_id}</code>`],
  ['Joined', timestamp(member.created_at)],
])}`;
}

export interface OrganizationsPageInput {
  organizations: readonly OrganizationView[];
  meta: Record<string, unknown>;
  form?: OrganizationForm;
}

export function organizationsPage(user: SignedInUser, input: OrganizationsPageInput, status = 200): RenderedPage {
  const form = input.form ?? { values: {}, problems: [] };
  return consolePage(
    { title: 'Organizations', user, section: 'organizations' },
    html`<h1>Organizations</h1>
<p class="lead">The organizations you belong to. Their resources' events reach your webhooks.</p>
${records(input.organizations.map(organizationRecord), 'You belong to no organization.', 'Your organizations')}
${offsetPager(input.meta)}
<h2 id="${FORM}-heading">Create an organization</h2>
<form method="post" action="${consolePaths.organizations}" class="panel" aria-labelledby="${FORM}-heading">
${csrfField(user)}
${submissionField()}
${problemSummary(FORM, form.problems, LABELS)}
${textField({ form: FORM, name: 'name', label: LABELS.name, hint: '1-100 characters.', value: form.values.name, required: true, problems: form.problems })}
${textField({ form: FORM, name: 'slug', label: LABELS.slug, hint: 'Unique, 2-50 characters of a-z, 0-9 and -.', value: form.values.slug, required: true, problems: form.problems })}
<button type="submit">Create organization</button>
</form>`,
    status,
  );
}

export interface OrganizationPageInput {
  organization: OrganizationView;
  members: readonly MemberView[];
  meta: Record<string, unknown>;
  notice?: unknown;
}

export function organizationPage(user: SignedInUser, input: OrganizationPageInput): RenderedPage {
  const { organization } = input;
  return consolePage(
    { title: organization.name, user, section: 'organizations' },
    html`<p><a href="${consolePaths.organizations}">All organizations</a></p>
<h1>${organization.name}</h1>
${noticeFor(input.notice, NOTICES)}
${facts([
  ['Slug', html`<code>${organization.slug}</code>`],
  ['Id', html`<code>${organization.id}</code>`],
  ['Created', timestamp(organization.created_at)],
])}
<h2>Members and roles</h2>
${records(input.members.map(memberRecord), 'No members.', 'Members')}
${offsetPager(input.meta)}`,
  );
}
