import type { AuthContext } from '@app/common';
import type { OrganizationRole } from '@app/database';

export type OrganizationAction = 'read' | 'update' | 'delete' | 'manage_members' | 'manage_owners';

/** The roles that allow each action (docs/api.md#organizations). Platform admins may do everything. */
const ALLOWED: Record<OrganizationAction, readonly OrganizationRole[]> = {
  read: ['owner', 'admin', 'member', 'viewer'],
  update: ['owner', 'admin'],
  delete: ['owner'],
  manage_members: ['owner', 'admin'],
  manage_owners: ['owner'],
};

/**
 * Who may do what in an organization: the one place the service asks. `role` is the actor's
 * role there, null when they are not a member.
 */
export function can(actor: AuthContext, action: OrganizationAction, role: OrganizationRole | null): boolean {
  if (actor.role === 'admin') return true;
  return role !== null && ALLOWED[action].includes(role);
}
