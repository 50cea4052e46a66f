import type { OrganizationRole } from '@app/database';
import type { ResourceScope } from './resource.repository';

export type ResourceAction = 'write' | 'hard_delete' | 'move_out' | 'create_in';

/**
 * Taking a resource out of its organization, by hard delete or by moving it elsewhere, removes
 * it from every member there: the same roles decide both, so the two cannot drift apart.
 */
const REMOVING_ROLES: readonly OrganizationRole[] = ['owner', 'admin'];

/** The organization roles that allow each action on the organization's resources (docs/api.md#resource-access). */
const ORGANIZATION_ROLES_ALLOWED: Record<ResourceAction, readonly OrganizationRole[]> = {
  write: ['owner', 'admin', 'member'],
  hard_delete: REMOVING_ROLES,
  // A member who could move a resource to an organization they own could hard-delete it there.
  move_out: REMOVING_ROLES,
  create_in: ['owner', 'admin', 'member'],
};

/**
 * Who may do what with a resource the caller can already see (reading is the repository's
 * `visibleById` and `visibleInList`): its owner everything; otherwise their role in its
 * organization decides. `move_out` is asked of the resource where it is now; where it goes is
 * asked as `create_in`.
 * Platform admins read everything but write only what this allows them.
 */
export function can(
  scope: ResourceScope,
  action: ResourceAction,
  record: { owner_id: string | null; organization_id: string | null },
): boolean {
  if (action !== 'create_in' && record.owner_id === scope.auth.userId) return true;
  const role = record.organization_id === null ? undefined : scope.roles.get(record.organization_id);
  return role !== undefined && ORGANIZATION_ROLES_ALLOWED[action].includes(role);
}
