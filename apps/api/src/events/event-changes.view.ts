import { ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
import { ResourceView } from '../resources/resource.view';
import { UserProfileView, UserView } from '../users/user.view';

/** `previous_data` of `resource.updated`: the prior values of the fields that changed. */
export class ResourceChangesView extends PartialType(
  PickType(ResourceView, ['name', 'description', 'type', 'status', 'metadata', 'tags', 'organization_id'] as const),
) {}

/** The prior values of the profile fields that changed. */
export class UserProfileChangesView extends PartialType(UserProfileView) {}

/** `previous_data` of `user.updated`: the prior role or plan, or the prior profile fields, that changed. */
export class UserChangesView extends PartialType(PickType(UserView, ['role', 'plan'] as const)) {
  @ApiPropertyOptional({ type: UserProfileChangesView })
  profile?: UserProfileChangesView;
}
