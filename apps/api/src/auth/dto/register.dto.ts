import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, Matches, MaxLength } from 'class-validator';

export class RegisterDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: 255 })
  @IsString()
  @MaxLength(255)
  @IsEmail({}, { message: 'must be a valid email address' })
  email: string;

  @ApiProperty({ example: 'ada_l', pattern: '^[a-z0-9_-]{3,30}$' })
  @IsString()
  @Matches(/^[a-z0-9_-]{3,30}$/, { message: 'must be 3-30 characters of a-z, 0-9, _ and -' })
  username: string;

  @ApiProperty({ example: 'correct horse battery', minLength: 10, maxLength: 128, writeOnly: true })
  @IsString()
  @Length(10, 128, { message: 'must be 10-128 characters' })
  password: string;
}
