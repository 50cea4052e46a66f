import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class RefreshDto {
  @ApiProperty({ description: 'The refresh token of the last login or refresh; single use.' })
  @IsString({ message: 'must be a string' })
  @IsNotEmpty({ message: 'must not be empty' })
  @MaxLength(4096, { message: 'must be at most 4096 characters' })
  refresh_token: string;
}
