import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** RFC 6749 5.1. */
export class OAuthTokenResponseView {
  @ApiProperty({ example: 'oat_5fQm0c2ZrT9aB1xYw8VnK3pLd7HsE4gJ6uRtY0oPqWe' })
  access_token: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type: string;

  @ApiProperty({ type: 'integer', example: 3600 })
  expires_in: number;

  @ApiPropertyOptional({ description: 'Not issued for client credentials.', example: 'ort_0cN5xW7bT1yK4pD9sH3jF6gA2eU8iO0nB5mq8Zr2LmV' })
  refresh_token?: string;

  @ApiProperty({ example: 'read:resources write:resources', description: 'The granted scopes, space separated.' })
  scope: string;
}

/** RFC 6749 5.2. */
export class OAuthErrorView {
  @ApiProperty({
    example: 'invalid_grant',
    description:
      '`invalid_request`, `invalid_client`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, ' +
      '`temporarily_unavailable` or `server_error`.',
  })
  error: string;

  @ApiProperty({ example: 'Invalid grant: authorization code is invalid' })
  error_description: string;
}

/** RFC 7662 2.2. */
export class OAuthIntrospectionView {
  @ApiProperty()
  active: boolean;

  @ApiPropertyOptional({ example: 'read:resources' })
  scope?: string;

  @ApiPropertyOptional({ example: 'cli_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  client_id?: string;

  @ApiPropertyOptional({ example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', description: 'The account the token acts for.' })
  sub?: string;

  @ApiPropertyOptional({ enum: ['Bearer', 'refresh_token'] })
  token_type?: string;

  @ApiPropertyOptional({ type: 'integer' })
  exp?: number;

  @ApiPropertyOptional({ type: 'integer' })
  iat?: number;
}

/** RFC 8414 2. */
export class AuthorizationServerMetadataView {
  @ApiProperty({ example: 'https://api.example.com' })
  issuer: string;

  @ApiProperty()
  authorization_endpoint: string;

  @ApiProperty()
  token_endpoint: string;

  @ApiProperty()
  revocation_endpoint: string;

  @ApiProperty()
  introspection_endpoint: string;

  @ApiProperty({ type: String, isArray: true })
  scopes_supported: string[];

  @ApiProperty({ type: String, isArray: true })
  response_types_supported: string[];

  @ApiProperty({ type: String, isArray: true })
  response_modes_supported: string[];

  @ApiProperty({ type: String, isArray: true })
  grant_types_supported: string[];

  @ApiProperty({ type: String, isArray: true })
  token_endpoint_auth_methods_supported: string[];

  @ApiProperty({ type: String, isArray: true })
  revocation_endpoint_auth_methods_supported: string[];

  @ApiProperty({ type: String, isArray: true })
  introspection_endpoint_auth_methods_supported: string[];

  @ApiProperty({ type: String, isArray: true, description: 'S256 only; every client must use PKCE.' })
  code_challenge_methods_supported: string[];

  @ApiProperty({ description: 'Every authorization response carries `iss` (RFC 9207).' })
  authorization_response_iss_parameter_supported: boolean;

  @ApiProperty()
  service_documentation: string;
}
