import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';
import { Plan, PLANS, PLATFORM_ROLES, PlatformRole } from '@app/common';

/** Omitted fields keep their values; `null` is refused (there is no "no role"). */
export class AdminUpdateUserDto {
  @ApiPropertyOptional({ enum: PLATFORM_ROLES, description: 'Platform role.', example: 'admin' })
  @ValidateIf((_dto, value) => value !== undefined)
  @IsIn(PLATFORM_ROLES, { message: `must be one of: ${PLATFORM_ROLES.join(', ')}` })
  role?: PlatformRole;

  @ApiPropertyOptional({ enum: PLANS, description: 'Plan; it sets the rate limit.', example: 'pro' })
  @ValidateIf((_dto, value) => value !== undefined)
  @IsIn(PLANS, { message: `must be one of: ${PLANS.join(', ')}` })
  plan?: Plan;
}
