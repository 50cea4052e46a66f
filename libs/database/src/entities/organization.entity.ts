import { Column, Entity, PrimaryColumn } from 'typeorm';

export const ORGANIZATION_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

/** An organization; its slug is unique case-insensitively. */
@Entity('organizations')
export class OrganizationEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  slug: string;

  @Column('timestamp with time zone', { name: 'created_at', precision: 3 })
  createdAt: Date;

  @Column('timestamp with time zone', { name: 'updated_at', precision: 3 })
  updatedAt: Date;
}

/** A user's membership of an organization, with the role it gives them there. */
@Entity('organization_members')
export class OrganizationMemberEntity {
  @PrimaryColumn('text', { name: 'organization_id' })
  organizationId: string;

  @PrimaryColumn('text', { name: 'user_id' })
  userId: string;

  @Column('text')
  role: OrganizationRole;

  @Column('timestamp with time zone', { name: 'created_at', precision: 3 })
  createdAt: Date;
}
