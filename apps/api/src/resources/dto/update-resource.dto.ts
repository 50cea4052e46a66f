import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { idPattern } from '@app/common';
import { RESOURCE_STATUSES, RESOURCE_TYPES, ResourceMetadata, ResourceStatus, ResourceType } from '../resource.repository';
import { DESCRIPTION_FIELD, METADATA_FIELD, NAME_FIELD, TAGS_FIELD } from './resource-fields.openapi';
import {
  IsOrganizationReference,
  IsResourceDescription,
  IsResourceMetadata,
  IsResourceName,
  IsResourceStatus,
  IsResourceTags,
  IsResourceType,
  trimString,
} from './resource-field.validators';

/**
 * Body of `PATCH /resources/{id}` and `updates` of `PATCH /resources/bulk`: a subset of
 * the writable fields. `metadata` is a JSON Merge Patch (RFC 7396) of the current metadata.
 */
export class UpdateResourceDto {
  @ApiPropertyOptional({ ...NAME_FIELD, example: 'Renamed database' })
  @Transform(trimString)
  @IsResourceName()
  name?: string;

  @ApiPropertyOptional(DESCRIPTION_FIELD)
  @IsResourceDescription()
  description?: string | null;

  @ApiPropertyOptional({ enum: RESOURCE_TYPES, description: '`enterprise` is the legacy name of a type and is refused.', example: 'premium' })
  @IsResourceType()
  type?: ResourceType;

  @ApiPropertyOptional({ enum: RESOURCE_STATUSES, example: 'archived' })
  @IsResourceStatus()
  status?: ResourceStatus;

  @ApiPropertyOptional({ ...TAGS_FIELD, description: `Replaces the tags. ${TAGS_FIELD.description}` })
  @IsResourceTags()
  tags?: string[];

  @ApiPropertyOptional({
    ...METADATA_FIELD,
    nullable: true,
    example: { region: 'us-east-1', obsolete_key: null },
    description:
      'Merged into the current metadata (RFC 7396): a key set to null is removed; null clears all. ' +
      `${METADATA_FIELD.description} The merged metadata keeps the 50-key limit.`,
  })
  @IsResourceMetadata({ nullable: true })
  metadata?: Partial<ResourceMetadata> | null;
}

/**
 * Body of `PATCH /resources/{id}`: the bulk update's fields, and `organization_id` to move the
 * resource (null takes it out of its organization). Moving out needs what a hard delete there
 * needs; moving in, what a create there needs.
 */
export class PatchResourceDto extends UpdateResourceDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: idPattern('org'),
    example: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    description:
      'Moves the resource to this organization (`org_`), or out of any with null. Taking it out of its organization ' +
      'needs its owner or an owner or admin there (as a hard delete does); the target needs the rights a create there needs.',
  })
  @IsOrganizationReference()
  organization_id?: string | null;
}
