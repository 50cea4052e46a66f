import type { MemberView, OrganizationView } from '../../organizations/organization.view';
import type { RenderedPage } from '../../platform/pages/page-layout';
import type { SignedInUser } from '../access/signed-in-user';
import { consolePaths } from '../console-paths';
import { consolePage } from '../rendering/console-layout';
import { html, Html } from '../rendering/html';
import { badge, facts, offsetPager, records, timestamp } from '../rendering/page-parts';

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

export function organizationsPage(user: SignedInUser, organizations: readonly OrganizationView[], meta: Record<string, unknown>): RenderedPage {
  return consolePage(
    { title: 'Organizations', user, section: 'organizations' },
    html`<h1>Organizations</h1>
<p class="lead">The organizations you belong to. Their resources' events reach your webhooks.</p>
${records(organizations.map(organizationRecord), 'You belong to no organization.', 'Your organizations')}
${offsetPager(meta)}`,
  );
}

export function organizationPage(user: SignedInUser, organization: OrganizationView, members: readonly MemberView[], meta: Record<string, unknown>): RenderedPage {
  return consolePage(
    { title: organization.name, user, section: 'organizations' },
    html`<p><a href="${consolePaths.organizations}">All organizations</a></p>
<h1>${organization.name}</h1>
${facts([
  ['Slug', html`<code>${organization.slug}</code>`],
  ['Id', html`<code>${organization.id}</code>`],
  ['Created', timestamp(organization.created_at)],
])}
<h2>Members and roles</h2>
${records(members.map(memberRecord), 'No members.', 'Members')}
${offsetPager(meta)}`,
  );
}
