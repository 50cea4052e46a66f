import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALL_SCOPES, idPattern, Scope } from '@app/common';
import type { OAuthClientRecord } from '../oauth-client.repository';

export class OAuthClientView {
  @ApiProperty({ example: 'cli_01JD3Q0F6K8W2M4N6P8R0T2V4X', pattern: idPattern('cli'), description: 'Also the `client_id`.' })
  id: string;

  @ApiProperty({ example: 'Acme dashboard' })
  name: string;

  @ApiProperty({ type: String, isArray: true, example: ['https://app.example.com/oauth/callback'] })
  redirect_uris: string[];

  @ApiProperty({ enum: [...ALL_SCOPES], isArray: true, example: ['read:resources'] })
  scopes: Scope[];

  @ApiProperty({ example: true })
  confidential: boolean;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  created_at: string;
}

export class CreatedOAuthClientView extends OAuthClientView {
  @ApiPropertyOptional({
    description:
      'A confidential client\'s secret, shown only in this response; stored hashed. Left out of an `Idempotency-Key` ' +
      'replay (which says `Idempotent-Secret-Omitted: client_secret`).',
    example: 'ocs_5fQm0c2ZrT9aB1xYw8VnK3pLd7HsE4gJ6uRtY0oPqWe',
  })
  client_secret?: string;
}

/** The public form of a client: never its secret or hash. */
export function toOAuthClientView(client: OAuthClientRecord): OAuthClientView {
  return {
    id: client.id,
    name: client.name,
    redirect_uris: client.redirectUris,
    scopes: client.scopes,
    confidential: client.confidential,
    created_at: client.createdAt.toISOString(),
  };
}
