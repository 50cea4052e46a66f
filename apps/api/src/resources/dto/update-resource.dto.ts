import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { RESOURCE_STATUSES, RESOURCE_TYPES, ResourceMetadata, ResourceStatus, ResourceType } from '@app/database';
import { METADATA_VALUE_SCHEMA } from '../resource.view';
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
  @ApiPropertyOptional({ example: 'Renamed database', minLength: 1, maxLength: 100 })
  @Transform(trimString)
  @IsResourceName()
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, description: 'null clears it.' })
  @IsResourceDescription()
  description?: string | null;

  @ApiPropertyOptional({ enum: RESOURCE_TYPES })
  @IsResourceType()
  type?: ResourceType;

  @ApiPropertyOptional({ enum: RESOURCE_STATUSES, example: 'archived' })
  @IsResourceStatus()
  status?: ResourceStatus;

  @ApiPropertyOptional({ type: [String], maxItems: 20, description: 'Replaces the tags.' })
  @IsResourceTags()
  tags?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: METADATA_VALUE_SCHEMA,
    nullable: true,
    example: { region: 'us-east-1', obsolete_key: null },
    description: 'Merged into the current metadata (RFC 7396): a key set to null is removed; null clears all.',
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
    example: 'org_01JD3Q0F6K8W2M4N6P8R0T2V4X',
    description:
      'Moves the resource to this organization (`org_`), or out of any with null. Taking it out of its organization ' +
      'needs its owner or an owner or admin there (as a hard delete does); the target needs the rights a create there needs.',
  })
  @IsOrganizationReference()
  organization_id?: string | null;
}
