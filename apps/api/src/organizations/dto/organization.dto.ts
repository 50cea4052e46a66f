import { ApiProperty, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsString, Length, Matches } from 'class-validator';
import { ORGANIZATION_ROLES, OrganizationRole } from '@app/database';

const SLUG = /^[a-z0-9-]{2,50}$/;
const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** `POST /organizations`. The slug is refused, not lowered, when it has capitals. */
export class CreateOrganizationDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Acme' })
  @Transform(trim)
  @IsString({ message: 'must be a string' })
  @Length(1, 100, { message: 'must be 1-100 characters' })
  name: string;

  @ApiProperty({ pattern: SLUG.source, minLength: 2, maxLength: 50, example: 'acme' })
  @IsString({ message: 'must be a string' })
  @Matches(SLUG, { message: 'must be 2-50 characters of a-z, 0-9 and -' })
  slug: string;
}

/** `PATCH /organizations/{id}`: either field, or both, under the same rules. */
export class UpdateOrganizationDto extends PartialType(CreateOrganizationDto) {}

/** `POST /organizations/{id}/members`. */
export class AddMemberDto {
  @ApiProperty({ example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  @IsString({ message: 'must be a string' })
  @IsNotEmpty({ message: 'must not be empty' })
  user_id: string;

  @ApiProperty({ enum: ORGANIZATION_ROLES })
  @IsIn(ORGANIZATION_ROLES, { message: `must be one of: ${ORGANIZATION_ROLES.join(', ')}` })
  role: OrganizationRole;
}
