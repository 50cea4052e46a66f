import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class RefreshDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 4096,
    description: 'The refresh token of the last login or refresh; single use.',
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJyZWZyZXNoIn0.c2lnbmF0dXJl',
  })
  @IsString({ message: 'must be a string' })
  @IsNotEmpty({ message: 'must not be empty' })
  @MaxLength(4096, { message: 'must be at most 4096 characters' })
  refresh_token: string;
}
