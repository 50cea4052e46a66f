import { ApiProperty } from '@nestjs/swagger';
import { idPattern } from '@app/common';
import { Type } from 'class-transformer';
import { IsDefined, ValidateNested } from 'class-validator';
import { CreateResourceDto } from './create-resource.dto';
import { IsBulkList, IsPlainObject } from './resource-field.validators';
import { UpdateResourceDto } from './update-resource.dto';

export const BULK_MAX = 100;

/** Body of `POST /resources/bulk`: created all together or not at all. */
export class BulkCreateResourcesDto {
  @ApiProperty({ type: [CreateResourceDto], minItems: 1, maxItems: BULK_MAX })
  @IsBulkList(BULK_MAX, 'resources')
  @ValidateNested({ each: true })
  @Type(() => CreateResourceDto)
  resources: CreateResourceDto[];
}

/** Body of `PATCH /resources/bulk`: the same changes to every listed resource, atomically. */
export class BulkUpdateResourcesDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', pattern: idPattern('res') },
    minItems: 1,
    maxItems: BULK_MAX,
    uniqueItems: true,
    description: 'Resources the caller may write. Any that is unknown, deleted or not visible fails the request with 404 naming it.',
    example: ['res_01JD3Q0F6K8W2M4N6P8R0T2V4X'],
  })
  @IsBulkList(BULK_MAX, 'resource ids')
  ids: string[];

  @ApiProperty({ type: UpdateResourceDto, minProperties: 1, description: 'At least one field to set.', example: { status: 'archived' } })
  @IsDefined({ message: 'is required' })
  @IsPlainObject()
  @ValidateNested()
  @Type(() => UpdateResourceDto)
  updates: UpdateResourceDto;
}
