import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined } from 'class-validator';
import { RESOURCE_TYPES, ResourceMetadata, ResourceType } from '@app/database';
import { METADATA_VALUE_SCHEMA } from '../resource.view';
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
  @ApiProperty({ example: 'Primary database', minLength: 1, maxLength: 100, description: 'Trimmed; 1-100 characters.' })
  @Transform(trimString)
  @IsDefined({ message: 'is required' })
  @IsResourceName()
  name: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, example: 'Orders and invoices' })
  @IsResourceDescription()
  description?: string | null;

  @ApiPropertyOptional({
    enum: RESOURCE_TYPES,
    default: 'standard',
    description: '`enterprise` is the legacy name of a type and is refused.',
  })
  @IsResourceType()
  type?: ResourceType;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: METADATA_VALUE_SCHEMA,
    example: { region: 'eu-west-1', replicas: 3 },
    description: 'Up to 50 keys of 1-40 characters; values string (up to 500), number, boolean or null.',
  })
  @IsResourceMetadata({ nullable: false })
  metadata?: ResourceMetadata;

  @ApiPropertyOptional({ type: [String], maxItems: 20, example: ['production'], description: 'Up to 20 distinct strings of 1-50 characters.' })
  @IsResourceTags()
  tags?: string[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description: 'An organization (`org_`) in which the caller is at least a member.',
  })
  @IsOrganizationReference()
  organization_id?: string | null;
}
