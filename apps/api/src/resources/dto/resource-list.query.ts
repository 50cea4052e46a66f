import { Transform } from 'class-transformer';
import { PAGE_MAX, PER_PAGE_MAX } from '@app/common';
import { LEGACY_RESOURCE_TYPE, RESOURCE_FIELDS, RESOURCE_STATUSES, RESOURCE_TYPES } from '../resource.repository';
import { WithValidationErrorWording } from '../../platform/validation/app-validation.pipe';
import {
  IsCursor,
  IsOrganizationFilter,
  IsQueryInteger,
  IsQueryList,
  IsResourceSort,
  RESOURCE_QUERY_WORDING,
  toQueryInteger,
} from './resource-query.validators';

const FILTER_TYPES: readonly string[] = [...RESOURCE_TYPES, LEGACY_RESOURCE_TYPE];

/**
 * `GET /resources` (docs/api.md#pagination): offset pages (`page`, `per_page`) or cursor pages (`cursor`,
 * `limit`), sorted, filtered, projected. Lists keep their text as sent (offset links repeat it);
 * `toResourceListQuery` reads them. `ApiListQueries()` documents the parameters with their
 * schemas written out, in the order and form the document has always given them.
 */
@WithValidationErrorWording(RESOURCE_QUERY_WORDING)
export class ResourceListQueryDto {
  @Transform(toQueryInteger)
  @IsQueryInteger(1, PAGE_MAX)
  page?: number;

  @Transform(toQueryInteger)
  @IsQueryInteger(1, PER_PAGE_MAX)
  per_page?: number;

  @IsCursor()
  cursor?: string;

  @Transform(toQueryInteger)
  @IsQueryInteger(1, PER_PAGE_MAX)
  limit?: number;

  @IsResourceSort()
  sort?: string;

  @IsQueryList(RESOURCE_STATUSES, 'status')
  'filter[status]'?: string;

  @IsQueryList(FILTER_TYPES, 'type')
  'filter[type]'?: string;

  @IsOrganizationFilter()
  'filter[organization_id]'?: string;

  @IsQueryList(RESOURCE_FIELDS, 'field')
  fields?: string;
}
