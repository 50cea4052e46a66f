import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsString()
  @MaxLength(255)
  @IsEmail({}, { message: 'must be a valid email address' })
  email: string;

  @ApiProperty({ example: 'correct horse battery', writeOnly: true })
  @IsString()
  @MaxLength(128)
  password: string;
}
