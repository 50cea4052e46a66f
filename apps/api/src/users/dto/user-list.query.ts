import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { PLATFORM_ROLES, PlatformRole } from '@app/common';
import { OffsetPageQuery } from '../../platform/pagination/offset-page.query';

/** `GET /users`: offset pages, narrowed by `search` and `role`. */
export class UserListQuery extends OffsetPageQuery {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 255,
    description: 'Case-insensitive substring of the email or username; `%` and `_` match themselves.',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Length(1, 255, { message: 'must be 1-255 characters' })
  search?: string;

  @ApiPropertyOptional({ enum: PLATFORM_ROLES, description: 'Only users with this platform role.' })
  @IsOptional()
  @IsIn(PLATFORM_ROLES, { message: `must be one of: ${PLATFORM_ROLES.join(', ')}` })
  role?: PlatformRole;
}
