import { ApiProperty } from '@nestjs/swagger';

export class TokenPairView {
  @ApiProperty({ description: 'JWT access token, valid for 15 minutes.' })
  access_token: string;

  @ApiProperty({ description: 'JWT refresh token, valid for 30 days, single use (rotated on refresh).' })
  refresh_token: string;

  @ApiProperty({ example: 'Bearer' })
  token_type: 'Bearer';

  @ApiProperty({ example: 900 })
  expires_in: number;
}
