/**
 * Who may call what: one table that both drives test/authorization-matrix.e2e-spec.ts (every
 * cell is a test) and renders docs/authorization.md (`npm run docs:authorization`).
 *
 * The fixture of every row: an organization with an owner, an admin, a member and a viewer,
 * and a resource in it created by the owner. "Other owner" owns another organization; "no
 * organization" belongs to none; the API keys are the member's. Every caller but the one in no
 * organization also owns an organization of its own, where the move rows try to take the
 * resource (and could then hard-delete it).
 */
export const ACTORS = [
  'owner',
  'admin',
  'member',
  'viewer',
  'other_owner',
  'no_organization',
  'platform_admin',
  'key_with_scope',
  'key_without_scope',
] as const;
export type Actor = (typeof ACTORS)[number];

export const ACTOR_LABELS: Record<Actor, string> = {
  owner: 'org owner',
  admin: 'org admin',
  member: 'org member',
  viewer: 'org viewer',
  other_owner: "another org's owner",
  no_organization: 'in no org',
  platform_admin: 'platform admin',
  key_with_scope: 'member API key with scope',
  key_without_scope: 'member API key without scope',
};

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The ids a row's path and body are built from. */
export interface Fixture {
  organizationId: string;
  resourceId: string;
  /** A user in no organization, for member additions. */
  outsiderId: string;
  memberId: string;
  /**
   * An organization the caller owns besides the fixture's (for the API keys, the member's); the
   * caller in no organization names the other owner's, which it cannot write in either.
   */
  ownOrganizationId: string;
}

export interface MatrixRow {
  method: Method;
  /** The documented path, with `{id}` placeholders. */
  path: string;
  note?: string;
  url: (f: Fixture) => string;
  body?: (f: Fixture) => Record<string, unknown>;
  expected: Record<Actor, number>;
}

/** Statuses in ACTORS order. */
function statuses(...values: number[]): Record<Actor, number> {
  return Object.fromEntries(ACTORS.map((actor, index) => [actor, values[index]])) as Record<Actor, number>;
}

export const MATRIX: readonly MatrixRow[] = [
  { method: 'GET', path: '/resources', url: () => '/v2/resources', expected: statuses(200, 200, 200, 200, 200, 200, 200, 200, 403) },
  {
    method: 'POST',
    path: '/resources',
    note: 'with the organization_id',
    url: () => '/v2/resources',
    body: (f) => ({ name: 'matrix', organization_id: f.organizationId }),
    expected: statuses(201, 201, 201, 403, 404, 404, 404, 201, 403),
  },
  {
    method: 'GET',
    path: '/resources/{id}',
    url: (f) => `/v2/resources/${f.resourceId}`,
    expected: statuses(200, 200, 200, 200, 404, 404, 200, 200, 403),
  },
  {
    method: 'PUT',
    path: '/resources/{id}',
    url: (f) => `/v2/resources/${f.resourceId}`,
    body: () => ({ name: 'replaced' }),
    expected: statuses(200, 200, 200, 403, 404, 404, 403, 200, 403),
  },
  {
    method: 'PATCH',
    path: '/resources/{id}',
    url: (f) => `/v2/resources/${f.resourceId}`,
    body: () => ({ name: 'patched' }),
    expected: statuses(200, 200, 200, 403, 404, 404, 403, 200, 403),
  },
  {
    method: 'PATCH',
    path: '/resources/{id}',
    note: 'organization_id of an organization the caller owns',
    url: (f) => `/v2/resources/${f.resourceId}`,
    body: (f) => ({ organization_id: f.ownOrganizationId }),
    expected: statuses(200, 200, 403, 403, 404, 404, 403, 403, 403),
  },
  {
    method: 'PATCH',
    path: '/resources/{id}',
    note: 'organization_id null',
    url: (f) => `/v2/resources/${f.resourceId}`,
    body: () => ({ organization_id: null }),
    expected: statuses(200, 200, 403, 403, 404, 404, 403, 403, 403),
  },
  {
    method: 'PATCH',
    path: '/resources/{id}',
    note: 'organization_id of the organization it is in: no move',
    url: (f) => `/v2/resources/${f.resourceId}`,
    body: (f) => ({ organization_id: f.organizationId }),
    expected: statuses(200, 200, 200, 403, 404, 404, 403, 200, 403),
  },
  {
    method: 'DELETE',
    path: '/resources/{id}',
    url: (f) => `/v2/resources/${f.resourceId}`,
    expected: statuses(204, 204, 204, 403, 404, 404, 403, 204, 403),
  },
  {
    method: 'DELETE',
    path: '/resources/{id}?hard=true',
    url: (f) => `/v2/resources/${f.resourceId}?hard=true`,
    expected: statuses(204, 204, 403, 403, 404, 404, 403, 403, 403),
  },
  {
    method: 'POST',
    path: '/resources/bulk',
    note: 'with the organization_id',
    url: () => '/v2/resources/bulk',
    body: (f) => ({ resources: [{ name: 'matrix', organization_id: f.organizationId }] }),
    expected: statuses(201, 201, 201, 403, 404, 404, 404, 201, 403),
  },
  {
    method: 'PATCH',
    path: '/resources/bulk',
    url: () => '/v2/resources/bulk',
    body: (f) => ({ ids: [f.resourceId], updates: { status: 'archived' } }),
    expected: statuses(200, 200, 200, 403, 404, 404, 403, 200, 403),
  },
  {
    method: 'GET',
    path: '/organizations',
    url: () => '/v2/organizations',
    expected: statuses(200, 200, 200, 200, 200, 200, 200, 200, 403),
  },
  {
    method: 'POST',
    path: '/organizations',
    url: () => '/v2/organizations',
    body: () => ({ name: 'matrix', slug: `matrix-${Math.random().toString(36).slice(2, 12)}` }),
    expected: statuses(201, 201, 201, 201, 201, 201, 201, 201, 403),
  },
  {
    method: 'GET',
    path: '/organizations/{id}',
    url: (f) => `/v2/organizations/${f.organizationId}`,
    expected: statuses(200, 200, 200, 200, 404, 404, 200, 200, 403),
  },
  {
    method: 'PATCH',
    path: '/organizations/{id}',
    url: (f) => `/v2/organizations/${f.organizationId}`,
    body: () => ({ name: 'renamed' }),
    expected: statuses(200, 200, 403, 403, 404, 404, 200, 403, 403),
  },
  {
    method: 'DELETE',
    path: '/organizations/{id}',
    note: 'an organization without resources',
    url: (f) => `/v2/organizations/${f.organizationId}`,
    expected: statuses(204, 403, 403, 403, 404, 404, 204, 403, 403),
  },
  {
    method: 'GET',
    path: '/organizations/{id}/members',
    url: (f) => `/v2/organizations/${f.organizationId}/members`,
    expected: statuses(200, 200, 200, 200, 404, 404, 200, 200, 403),
  },
  {
    method: 'POST',
    path: '/organizations/{id}/members',
    note: 'role member',
    url: (f) => `/v2/organizations/${f.organizationId}/members`,
    body: (f) => ({ user_id: f.outsiderId, role: 'member' }),
    expected: statuses(201, 201, 403, 403, 404, 404, 201, 403, 403),
  },
  {
    method: 'DELETE',
    path: '/organizations/{id}/members/{user_id}',
    note: 'the member (themselves, for the member)',
    url: (f) => `/v2/organizations/${f.organizationId}/members/${f.memberId}`,
    expected: statuses(204, 204, 204, 403, 404, 404, 204, 204, 403),
  },
  { method: 'GET', path: '/users', url: () => '/v2/users', expected: statuses(200, 200, 200, 200, 200, 200, 200, 200, 403) },
  { method: 'GET', path: '/users/me', url: () => '/v2/users/me', expected: statuses(200, 200, 200, 200, 200, 200, 200, 200, 403) },
  {
    method: 'PATCH',
    path: '/users/me',
    url: () => '/v2/users/me',
    body: () => ({ profile: { first_name: 'Matrix' } }),
    expected: statuses(200, 200, 200, 200, 200, 200, 200, 200, 403),
  },
];

/** The scopes of the member's two API keys. */
export const KEY_WITH_SCOPE = ['read:resources', 'write:resources', 'read:organizations', 'write:organizations', 'read:users', 'write:users'];
export const KEY_WITHOUT_SCOPE = ['read:events'];

/** docs/authorization.md, rendered from MATRIX. */
export function renderAuthorizationDoc(): string {
  const header = `| Endpoint | ${ACTORS.map((actor) => ACTOR_LABELS[actor]).join(' | ')} |`;
  const rule = `|---|${ACTORS.map(() => '---').join('|')}|`;
  const rows = MATRIX.map((row) => {
    const name = `\`${row.method} ${row.path}\`${row.note ? ` (${row.note})` : ''}`;
    return `| ${name} | ${ACTORS.map((actor) => row.expected[actor]).join(' | ')} |`;
  });
  return [
    '# Who may call what',
    '',
    'Generated from `test/authorization-matrix.ts` by `npm run docs:authorization`; every cell is',
    'an e2e test (`test/authorization-matrix.e2e-spec.ts`). Do not edit by hand.',
    '',
    'The setting of every row: an organization with an owner, an admin, a member and a viewer, and',
    'a resource in it created by its owner. Every caller but the one in no organization also owns an',
    "organization of its own, the target of the move rows (the one in no organization names another's).",
    'The API keys belong to the member: one carries',
    `${KEY_WITH_SCOPE.map((scope) => `\`${scope}\``).join(', ')}; the other only \`${KEY_WITHOUT_SCOPE.join(', ')}\`.`,
    '404 means the caller cannot see the organization or resource; 403 that they can see it but',
    'their role, platform role or key scope does not allow the action.',
    '',
    header,
    rule,
    ...rows,
    '',
  ].join('\n');
}
