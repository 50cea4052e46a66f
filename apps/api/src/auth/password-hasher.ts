import { Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { AppConfig, PasswordHashCost } from '@app/config';

/** argon2id at the configured cost (PASSWORD_HASH_*; by default the library's, which OWASP recommends). */
@Injectable()
export class PasswordHasher {
  private readonly cost: PasswordHashCost;
  /** What an unknown account's password is checked against: a hash of the same cost, so both paths take as long. */
  private readonly unknownAccountHash: Promise<string>;

  constructor(config: AppConfig) {
    this.cost = config.passwordHashCost;
    this.unknownAccountHash = this.hash(randomBytes(16).toString('hex'));
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, { type: argon2.argon2id, ...this.cost });
  }

  /** Whether `password` is the one hashed; with no hash (an unknown account), false after the same work. */
  async verify(hash: string | undefined, password: string): Promise<boolean> {
    const checked = hash ?? (await this.unknownAccountHash);
    const valid = await argon2.verify(checked, password).catch(() => false);
    return hash !== undefined && valid;
  }
}
