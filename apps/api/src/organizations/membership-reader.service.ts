import { Injectable } from '@nestjs/common';
import type { OrganizationRole } from '@app/database';
import { OrganizationRepository } from './organization.repository';

/** A user's organizations and their role in each, for the contexts whose rules depend on them. */
@Injectable()
export class MembershipReader {
  constructor(private readonly organizations: OrganizationRepository) {}

  /** One read, by the index on (user_id, organization_id): the first step of every visibility check. */
  async rolesOf(userId: string): Promise<ReadonlyMap<string, OrganizationRole>> {
    const memberships = await this.organizations.memberships(userId);
    return new Map(memberships.map((membership) => [membership.organizationId, membership.role]));
  }
}
