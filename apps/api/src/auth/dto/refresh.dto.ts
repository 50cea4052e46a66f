import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class RefreshDto {
  @ApiProperty({ description: 'The refresh token of the last login or refresh.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  refresh_token: string;
}
