import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { RESOURCE_STATUSES, RESOURCE_TYPES, ResourceMetadata, ResourceStatus, ResourceType } from '@app/database';
import { METADATA_VALUE_SCHEMA } from '../resource.view';
import {
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
