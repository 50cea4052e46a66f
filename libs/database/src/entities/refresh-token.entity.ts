import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A refresh token, by its JWT id. Tokens of one login share a family; presenting a token that
 * was already rotated revokes the whole family (RFC 9700 reuse detection).
 */
@Entity('refresh_tokens')
export class RefreshTokenEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'family_id' })
  familyId: string;

  @Column('text', { name: 'user_id' })
  userId: string;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('timestamptz', { name: 'rotated_at', nullable: true })
  rotatedAt: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
