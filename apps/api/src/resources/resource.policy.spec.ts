import type { AuthContext } from '@app/common';
import type { OrganizationRole } from '@app/database';
import type { ResourceScope } from './resource.repository';
import { can } from './resource.policy';

const CALLER = 'usr_caller';
const ORGANIZATION = 'org_a';

function scopeWith(role: OrganizationRole | null, platformRole: AuthContext['role'] = 'user'): ResourceScope {
  return {
    auth: { userId: CALLER, role: platformRole } as AuthContext,
    roles: new Map(role === null ? [] : [[ORGANIZATION, role]]),
  };
}

const anotherUsersResource = { owner_id: 'usr_other', organization_id: ORGANIZATION };

describe('can (docs/api.md#resource-access)', () => {
  it.each([
    ['owner', true],
    ['admin', true],
    ['member', false],
    ['viewer', false],
  ] as const)("lets an organization %s move another user's resource out of it: %s", (role, allowed) => {
    expect(can(scopeWith(role), 'move_out', anotherUsersResource)).toBe(allowed);
    // Moving out takes the resource from the organization as hard-deleting it there does.
    expect(can(scopeWith(role), 'hard_delete', anotherUsersResource)).toBe(allowed);
  });

  it("lets a resource's owner move it out whatever their role, and no one outside the organization (platform admins included) another's", () => {
    expect(can(scopeWith('viewer'), 'move_out', { ...anotherUsersResource, owner_id: CALLER })).toBe(true);
    expect(can(scopeWith(null), 'move_out', { ...anotherUsersResource, owner_id: CALLER })).toBe(true);
    expect(can(scopeWith(null), 'move_out', anotherUsersResource)).toBe(false);
    expect(can(scopeWith(null, 'admin'), 'move_out', anotherUsersResource)).toBe(false);
  });

  it('lets a member write and create in the organization, but not move out of it', () => {
    const member = scopeWith('member');
    expect(can(member, 'write', anotherUsersResource)).toBe(true);
    expect(can(member, 'create_in', { owner_id: null, organization_id: ORGANIZATION })).toBe(true);
    expect(can(member, 'move_out', anotherUsersResource)).toBe(false);
  });
});
