import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A token of the earlier API version, imported by the command-line tool and exchangeable once
 * for a token pair at `POST /auth/migrate`. Only its SHA-256 is stored.
 */
@Entity('legacy_tokens')
export class LegacyTokenEntity {
  @PrimaryColumn('text', { name: 'token_hash' })
  tokenHash: string;

  @Column('text', { name: 'user_id' })
  userId: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'used_at', nullable: true })
  usedAt: Date | null;
}
