import { ApiProperty } from '@nestjs/swagger';

export class TokenPairView {
  @ApiProperty({ description: 'JWT access token, valid for 15 minutes.', example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJhY2Nlc3MifQ.c2lnbmF0dXJl' })
  access_token: string;

  @ApiProperty({
    description: 'JWT refresh token, valid for 30 days, single use (rotated on refresh).',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJyZWZyZXNoIn0.c2lnbmF0dXJl',
  })
  refresh_token: string;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  token_type: 'Bearer';

  @ApiProperty({ type: 'integer', description: 'Seconds the access token is valid for.', example: 900 })
  expires_in: number;
}
