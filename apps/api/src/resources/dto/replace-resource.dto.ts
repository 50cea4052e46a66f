import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined } from 'class-validator';
import { RESOURCE_TYPES, ResourceMetadata, ResourceType } from '@app/database';
import { METADATA_VALUE_SCHEMA } from '../resource.view';
import {
  IsResourceDescription,
  IsResourceMetadata,
  IsResourceName,
  IsResourceTags,
  IsResourceType,
  trimString,
} from './resource-field.validators';

/**
 * Body of `PUT /resources/{id}`: the whole writable content. Omitted optional fields go back
 * to their defaults; `status` is kept (change it with PATCH).
 */
export class ReplaceResourceDto {
  @ApiProperty({ example: 'Primary database', minLength: 1, maxLength: 100 })
  @Transform(trimString)
  @IsDefined({ message: 'is required' })
  @IsResourceName()
  name: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, default: null })
  @IsResourceDescription()
  description?: string | null;

  @ApiPropertyOptional({ enum: RESOURCE_TYPES, default: 'standard' })
  @IsResourceType()
  type?: ResourceType;

  @ApiPropertyOptional({ type: 'object', additionalProperties: METADATA_VALUE_SCHEMA, default: {}, example: { region: 'eu-west-1' } })
  @IsResourceMetadata({ nullable: false })
  metadata?: ResourceMetadata;

  @ApiPropertyOptional({ type: [String], maxItems: 20, default: [] })
  @IsResourceTags()
  tags?: string[];
}
