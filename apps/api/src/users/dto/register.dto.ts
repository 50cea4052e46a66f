import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, Matches, MaxLength } from 'class-validator';

/** `role` and `plan` are not fields here: a new account is always a `user` on `free`. */
export class RegisterDto {
  @ApiProperty({ format: 'email', example: 'ada@example.com', maxLength: 255, description: 'Unique, compared case-insensitively.' })
  @IsString({ message: 'must be a string' })
  @MaxLength(255, { message: 'must be at most 255 characters' })
  // The length limit is MaxLength's 255 (docs/api.md#users), not the validator's built-in 254; a
  // domain without a dot (`ada@localhost`) is an address as RFC 5321 and `format: email` have it.
  @IsEmail({ ignore_max_length: true, require_tld: false }, { message: 'must be a valid email address' })
  email: string;

  @ApiProperty({ example: 'ada_l', pattern: '^[a-z0-9_-]{3,30}$', description: 'Unique.' })
  @IsString({ message: 'must be a string' })
  @Matches(/^[a-z0-9_-]{3,30}$/, { message: 'must be 3-30 characters of a-z, 0-9, _ and -' })
  username: string;

  @ApiProperty({ example: 'correct horse battery', minLength: 10, maxLength: 128, writeOnly: true })
  @IsString({ message: 'must be a string' })
  @Length(10, 128, { message: 'must be 10-128 characters' })
  password: string;
}
