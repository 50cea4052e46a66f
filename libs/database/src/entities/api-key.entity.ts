import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Scope } from '@app/common';

/**
 * An API key. Only the SHA-256 of its secret is stored; `prefix` (the first characters of the
 * secret) lets its owner recognise it. A deleted key keeps its row with `revoked_at` set, so a
 * later use is refused as revoked rather than unknown.
 */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'user_id' })
  userId: string;

  @Column('text')
  name: string;

  @Column('text', { array: true })
  scopes: Scope[];

  @Column('text')
  prefix: string;

  @Column('text', { name: 'secret_hash', select: false })
  secretHash: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  /** After this the key is refused as expired; null when it never expires. */
  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
