import { ApiProperty } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString, Length } from 'class-validator';
import { ALL_SCOPES, Scope } from '@app/common';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'CI deploys', minLength: 1, maxLength: 100, description: 'To recognise the key by.' })
  @IsString()
  @Length(1, 100, { message: 'must be 1-100 characters' })
  name: string;

  @ApiProperty({
    enum: [...ALL_SCOPES],
    isArray: true,
    minItems: 1,
    uniqueItems: true,
    description: 'What the key may do: GET needs `read:<area>`, other methods `write:<area>`. Write does not imply read.',
    example: ['read:resources', 'write:resources'],
  })
  @IsArray({ message: 'must be an array of scopes' })
  @ArrayNotEmpty({ message: 'must name at least one scope' })
  @ArrayUnique({ message: 'must not repeat a scope' })
  @IsIn(ALL_SCOPES, { each: true, message: `must contain only known scopes: ${ALL_SCOPES.join(', ')}` })
  scopes: Scope[];
}
