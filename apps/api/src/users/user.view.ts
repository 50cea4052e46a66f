import { ApiProperty } from '@nestjs/swagger';
import { idPattern, PLANS, PLATFORM_ROLES } from '@app/common';
import type { UserEntity } from '@app/database';

export class UserProfileView {
  @ApiProperty({ nullable: true, type: String, example: 'Ada' })
  first_name: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'Lovelace' })
  last_name: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'uri', example: 'https://example.com/ada.png' })
  avatar_url: string | null;
}

export class UserView {
  @ApiProperty({ example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', pattern: idPattern('usr') })
  id: string;

  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  email: string;

  @ApiProperty({ example: 'ada_l' })
  username: string;

  @ApiProperty({ enum: PLATFORM_ROLES, example: 'user', description: 'Platform role.' })
  role: string;

  @ApiProperty({ enum: PLANS, example: 'free', description: 'Sets the rate limit: 60, 600 or 6000 requests a minute.' })
  plan: string;

  @ApiProperty({ type: UserProfileView })
  profile: UserProfileView;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  updated_at: string;
}

/** The public form of a user: never the password hash. */
export function toUserView(user: UserEntity): UserView {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    role: user.role,
    plan: user.plan,
    profile: { first_name: user.firstName, last_name: user.lastName, avatar_url: user.avatarUrl },
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
