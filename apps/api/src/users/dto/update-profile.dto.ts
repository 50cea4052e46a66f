import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, IsUrl, Length, Matches, MaxLength, ValidateNested } from 'class-validator';

/** Each field is optional; `null` clears it. An empty string is refused: send `null` instead. */
export class ProfileChangesDto {
  @ApiPropertyOptional({ type: String, example: 'Ada', minLength: 1, maxLength: 100, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 100, { message: 'must be 1-100 characters (send null to clear it)' })
  first_name?: string | null;

  @ApiPropertyOptional({ type: String, example: 'Lovelace', minLength: 1, maxLength: 100, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 100, { message: 'must be 1-100 characters (send null to clear it)' })
  last_name?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uri', pattern: '^https://', example: 'https://example.com/ada.png', maxLength: 2048, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2048, { message: 'must be at most 2048 characters' })
  // What `format: uri` takes: ASCII only (an international name goes as punycode), and a host
  // without a dot (`https://intranet/a.png`) is a host all the same.
  @Matches(/^[\x21-\x7e]*$/, { message: 'must be written in ASCII (punycode for an international host name)' })
  @IsUrl({ protocols: ['https'], require_protocol: true, require_tld: false }, { message: 'must be an https URL' })
  avatar_url?: string | null;
}

export class UpdateProfileDto {
  @ApiProperty({ type: ProfileChangesDto, description: 'The profile fields to change; the others keep their values.' })
  @IsDefined({ message: 'is required' })
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => ProfileChangesDto)
  profile: ProfileChangesDto;
}
