import { ApiProperty } from '@nestjs/swagger';
import { idPattern } from '@app/common';
import type { OrganizationEntity } from '@app/database';
import type { UserIdentity } from '../users/user-identities.service';
import type { MemberRecord } from './organization.repository';
import { ORGANIZATION_ROLES, OrganizationRole } from '@app/database';

export class OrganizationView {
  @ApiProperty({ example: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X', pattern: idPattern('org') })
  id: string;

  @ApiProperty({ example: 'Acme', minLength: 1, maxLength: 100 })
  name: string;

  @ApiProperty({ example: 'acme', description: 'Unique, compared case-insensitively; set as 2-50 of [a-z0-9-].' })
  slug: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class MemberUserView {
  @ApiProperty({ example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  id: string;

  @ApiProperty({ example: 'ada_l' })
  username: string;

  @ApiProperty({ example: 'ada@example.com' })
  email: string;
}

export class MemberView {
  @ApiProperty({ example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  user_id: string;

  @ApiProperty({ enum: ORGANIZATION_ROLES })
  role: OrganizationRole;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: MemberUserView })
  user: MemberUserView;
}

export function toOrganizationView(organization: OrganizationEntity): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    created_at: organization.createdAt.toISOString(),
    updated_at: organization.updatedAt.toISOString(),
  };
}

export function toMemberView(member: MemberRecord, user: UserIdentity): MemberView {
  return {
    user_id: member.userId,
    role: member.role,
    created_at: member.createdAt.toISOString(),
    user: { id: user.id, username: user.username, email: user.email },
  };
}
