import { RESOURCE_FIELDS } from '../resource.repository';
import { WithValidationErrorWording } from '../../platform/validation/app-validation.pipe';
import { IsQueryList, RESOURCE_QUERY_WORDING } from './resource-query.validators';

/** `GET /resources/{id}` takes `fields` only (documented by `FIELDS_QUERY`). */
@WithValidationErrorWording(RESOURCE_QUERY_WORDING)
export class ResourceFieldsQueryDto {
  @IsQueryList(RESOURCE_FIELDS, 'field')
  fields?: string;
}
