import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { PLATFORM_ROLES, PlatformRole } from '@app/common';

export class UserListQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1-100' })
  @Max(100, { message: 'must be 1-100' })
  per_page?: number;

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
