import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ format: 'email', example: 'ada@example.com', maxLength: 255, description: 'Compared case-insensitively.' })
  @IsString({ message: 'must be a string' })
  @MaxLength(255, { message: 'must be at most 255 characters' })
  // The length limit is MaxLength's 255 (docs/api.md#users), not the validator's built-in 254; a
  // domain without a dot (`ada@localhost`) is an address as RFC 5321 and `format: email` have it.
  @IsEmail({ ignore_max_length: true, require_tld: false }, { message: 'must be a valid email address' })
  email: string;

  @ApiProperty({ example: 'correct horse battery', minLength: 1, maxLength: 128, writeOnly: true })
  @IsString({ message: 'must be a string' })
  @Length(1, 128, { message: 'must be 1-128 characters' })
  password: string;
}
