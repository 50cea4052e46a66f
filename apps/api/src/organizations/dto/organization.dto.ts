import { ApiProperty, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsString, Length, Matches } from 'class-validator';
import { idPattern } from '@app/common';
import { ORGANIZATION_ROLES, OrganizationRole } from '@app/database';

const SLUG = /^[a-z0-9-]{2,50}$/;
const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** `POST /organizations`. The slug is refused, not lowered, when it has capitals. */
export class CreateOrganizationDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    // Trimmed before its length is checked: at least one character that is not white space, and no NUL.
    pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$',
    description: 'Stored trimmed; 1-100 characters that are not all white space.',
    example: 'Acme',
  })
  @Transform(trim)
  @IsString({ message: 'must be a string' })
  @Length(1, 100, { message: 'must be 1-100 characters' })
  name: string;

  @ApiProperty({ pattern: SLUG.source, minLength: 2, maxLength: 50, description: 'Unique, compared case-insensitively.', example: 'acme' })
  @IsString({ message: 'must be a string' })
  @Matches(SLUG, { message: 'must be 2-50 characters of a-z, 0-9 and -' })
  slug: string;
}

/** `PATCH /organizations/{id}`: either field, or both, under the same rules. */
export class UpdateOrganizationDto extends PartialType(CreateOrganizationDto) {}

/** `POST /organizations/{id}/members`. */
export class AddMemberDto {
  @ApiProperty({ pattern: idPattern('usr'), description: 'An existing user (`usr_`); an unknown one is 404.', example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  @IsString({ message: 'must be a string' })
  @IsNotEmpty({ message: 'must not be empty' })
  user_id: string;

  @ApiProperty({ enum: ORGANIZATION_ROLES, description: 'Only an `owner` adds an `owner`.', example: 'member' })
  @IsIn(ORGANIZATION_ROLES, { message: `must be one of: ${ORGANIZATION_ROLES.join(', ')}` })
  role: OrganizationRole;
}
