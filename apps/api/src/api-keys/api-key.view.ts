import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALL_SCOPES, idPattern, Scope } from '@app/common';
import type { ApiKeyEntity } from '@app/database';

export class ApiKeyView {
  @ApiProperty({ example: 'key_01JD3Q0F6K8W2M4N6P8R0T2V4X', pattern: idPattern('key') })
  id: string;

  @ApiProperty({ example: 'CI deploys' })
  name: string;

  @ApiProperty({ enum: [...ALL_SCOPES], isArray: true, example: ['read:resources', 'write:resources'] })
  scopes: Scope[];

  @ApiProperty({ description: 'The first characters of the secret, to recognise the key.', example: 'sk_test_Ab12Cd' })
  prefix: string;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Null until the first use; it may lag a use by up to a minute.', example: '2025-11-21T10:02:00.000Z' })
  last_used_at: string | null;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the key stops working (401 saying it has expired after that); null when it never expires. Rolling a key sets it.',
    example: '2026-11-21T09:30:00.000Z',
  })
  expires_at: string | null;
}

export class CreatedApiKeyView extends ApiKeyView {
  @ApiPropertyOptional({
    description:
      'The secret, shown only in this response: send it as `X-API-Key`. Left out of an `Idempotency-Key` replay ' +
      '(which says `Idempotent-Secret-Omitted: key`): secrets are never stored for replays.',
    example: 'sk_test_5fQm0c2ZrT9aB1xYw8VnK3pLd7HsE4gJ6uRtY0oPqWe',
  })
  key?: string;
}

/** The public form of a key: never its secret or hash. */
export function toApiKeyView(key: ApiKeyEntity): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
    expires_at: key.expiresAt ? key.expiresAt.toISOString() : null,
  };
}
