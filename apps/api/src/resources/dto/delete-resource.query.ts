import { WithValidationErrorWording } from '../../platform/validation/app-validation.pipe';
import { IsQueryFlag, RESOURCE_QUERY_WORDING } from './resource-query.validators';

/** `DELETE /resources/{id}` takes `hard=true|false` only. */
@WithValidationErrorWording(RESOURCE_QUERY_WORDING)
export class DeleteResourceQueryDto {
  @IsQueryFlag()
  hard?: 'true' | 'false';
}
