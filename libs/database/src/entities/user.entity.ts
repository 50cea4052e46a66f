import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Plan, PlatformRole } from '@app/common';

@Entity('users')
export class UserEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  email: string;

  @Column('text')
  username: string;

  @Column('text', { name: 'password_hash', select: false })
  passwordHash: string;

  @Column('text')
  role: PlatformRole;

  @Column('text')
  plan: Plan;

  @Column('text', { name: 'first_name', nullable: true })
  firstName: string | null;

  @Column('text', { name: 'last_name', nullable: true })
  lastName: string | null;

  @Column('text', { name: 'avatar_url', nullable: true })
  avatarUrl: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
