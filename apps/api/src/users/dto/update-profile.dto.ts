import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, IsUrl, Length, MaxLength, ValidateNested } from 'class-validator';

export class ProfileChangesDto {
  @ApiPropertyOptional({ example: 'Ada', maxLength: 100, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  first_name?: string | null;

  @ApiPropertyOptional({ example: 'Lovelace', maxLength: 100, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  last_name?: string | null;

  @ApiPropertyOptional({ example: 'https://example.com/ada.png', maxLength: 2048, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'must be an https URL' })
  avatar_url?: string | null;
}

export class UpdateProfileDto {
  @ApiPropertyOptional({ type: ProfileChangesDto })
  @IsDefined({ message: 'is required' })
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => ProfileChangesDto)
  profile: ProfileChangesDto;
}
