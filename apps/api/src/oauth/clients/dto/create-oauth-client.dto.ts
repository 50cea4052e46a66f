import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { ALL_SCOPES, Scope } from '@app/common';
import { isRegistrableRedirectUri } from '../redirect-uri';

const MAX_REDIRECT_URIS = 10;

/** What `isRegistrableRedirectUri` takes, as a pattern: https, or http on a loopback host; no fragment. */
const REDIRECT_URI_PATTERN = '^(?:https://|http://(?:127\\.0\\.0\\.1|\\[::1\\]|localhost)(?:[:/?]|$))[^#]*$';

export class CreateOAuthClientDto {
  @ApiProperty({ example: 'Acme dashboard', minLength: 1, maxLength: 100, description: 'Shown to users on the consent page.' })
  @IsString({ message: 'must be a string' })
  @Length(1, 100, { message: 'must be 1-100 characters' })
  name: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'uri', maxLength: 2048, pattern: REDIRECT_URI_PATTERN },
    minItems: 1,
    maxItems: MAX_REDIRECT_URIS,
    uniqueItems: true,
    example: ['https://app.example.com/oauth/callback'],
    description: 'Exact URLs the authorization server may redirect to: https, or http on 127.0.0.1, [::1] or localhost; no fragment.',
  })
  @IsArray({ message: 'must be an array of URLs' })
  @ArrayNotEmpty({ message: 'must name at least one redirect URI' })
  @ArrayMaxSize(MAX_REDIRECT_URIS, { message: `must name at most ${MAX_REDIRECT_URIS} redirect URIs` })
  @ArrayUnique({ message: 'must not repeat a redirect URI' })
  @IsString({ each: true, message: 'must contain only strings' })
  @MaxLength(2048, { each: true, message: 'must contain URLs of at most 2048 characters' })
  // What `format: uri` takes: ASCII only, an international host name as punycode.
  @Matches(/^[\x21-\x7e]*$/, { each: true, message: 'must contain URLs written in ASCII (punycode for an international host name)' })
  @ValidateBy(
    {
      name: 'isRegistrableRedirectUri',
      validator: { validate: (value: unknown) => !Array.isArray(value) || value.every((uri) => typeof uri !== 'string' || isRegistrableRedirectUri(uri)) },
    },
    { message: 'must contain absolute https URLs (http only on a loopback host) without a fragment' },
  )
  redirect_uris: string[];

  @ApiProperty({
    enum: [...ALL_SCOPES],
    isArray: true,
    minItems: 1,
    uniqueItems: true,
    example: ['read:resources'],
    description: 'The most this client may be granted; a request for more is refused with `invalid_scope`.',
  })
  @IsArray({ message: 'must be an array of scopes' })
  @ArrayNotEmpty({ message: 'must name at least one scope' })
  @ArrayUnique({ message: 'must not repeat a scope' })
  @IsIn(ALL_SCOPES, { each: true, message: `must contain only known scopes: ${ALL_SCOPES.join(', ')}` })
  scopes: Scope[];

  @ApiPropertyOptional({
    default: true,
    example: true,
    description: 'A confidential client gets a `client_secret`; a public one (false) has none and must use PKCE. Omit it for true; null is refused.',
  })
  @ValidateIf((_dto, value) => value !== undefined)
  @IsBoolean({ message: 'must be a boolean' })
  confidential?: boolean;
}
