import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined } from 'class-validator';
import { idPattern } from '@app/common';
import { RESOURCE_TYPES, ResourceMetadata, ResourceType } from '../resource.repository';
import { DESCRIPTION_FIELD, METADATA_FIELD, NAME_FIELD, TAGS_FIELD } from './resource-fields.openapi';
import {
  IsOrganizationReference,
  IsResourceDescription,
  IsResourceMetadata,
  IsResourceName,
  IsResourceTags,
  IsResourceType,
  trimString,
} from './resource-field.validators';

/** Body of `POST /resources` and of each item of `POST /resources/bulk`. */
export class CreateResourceDto {
  @ApiProperty(NAME_FIELD)
  @Transform(trimString)
  @IsDefined({ message: 'is required' })
  @IsResourceName()
  name: string;

  @ApiPropertyOptional(DESCRIPTION_FIELD)
  @IsResourceDescription()
  description?: string | null;

  @ApiPropertyOptional({
    enum: RESOURCE_TYPES,
    default: 'standard',
    description: '`enterprise` is the legacy name of a type and is refused.',
    example: 'standard',
  })
  @IsResourceType()
  type?: ResourceType;

  @ApiPropertyOptional(METADATA_FIELD)
  @IsResourceMetadata({ nullable: false })
  metadata?: ResourceMetadata;

  @ApiPropertyOptional(TAGS_FIELD)
  @IsResourceTags()
  tags?: string[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: idPattern('org'),
    example: null,
    description: 'An organization (`org_`) in which the caller is at least a member; null or omitted: none.',
  })
  @IsOrganizationReference()
  organization_id?: string | null;
}
