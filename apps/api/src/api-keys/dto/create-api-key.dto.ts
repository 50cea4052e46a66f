import { ApiProperty } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString, Length } from 'class-validator';
import { ALL_SCOPES, Scope } from '@app/common';
import { InstantField, OverlapSecondsField } from '../../platform/validation/time-fields';

/** The furthest ahead a key may expire: two years (about 731 days). */
const LONGEST_LIFE_MS = 731 * 24 * 3600 * 1000;

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

  @InstantField(
    { earliestMs: 1, latestMs: LONGEST_LIFE_MS, wording: 'in the future, at most two years ahead' },
    { description: 'When the key stops working (RFC 3339, in the future, at most two years ahead); by default never.', example: '2026-12-31T23:59:59Z' },
  )
  expires_at?: string | null;
}

/** Body of `POST /api-keys/{id}/roll`. */
export class RollApiKeyDto {
  @OverlapSecondsField('Seconds the rolled key keeps working, 0 (stops at once) to 604800 (seven days); default 86400 (a day).')
  expires_in?: number | null;
}
