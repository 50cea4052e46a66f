import { Injectable } from '@nestjs/common';
import type { Plan, PlatformRole } from '@app/common';
import { UserRepository } from './user.repository';
import { ExpiringMap } from '../platform/cache/expiring-map';

export interface AccountSnapshot {
  role: PlatformRole;
  plan: Plan;
}

const TTL_MS = 5_000;

/**
 * Role and plan of an account, cached in-process for a few seconds: the authentication hot path
 * avoids a query per request, and a role or plan change reaches every replica well within one
 * rate-limit window.
 */
@Injectable()
export class AccountDirectory {
  private readonly cache = new ExpiringMap<string, AccountSnapshot | null>();

  constructor(private readonly users: UserRepository) {}

  async get(userId: string): Promise<AccountSnapshot | null> {
    const cached = this.cached(userId);
    if (cached !== undefined) return cached;
    const row = await this.users.findAccount(userId);
    const value = row ? { role: row.role, plan: row.plan } : null;
    this.cache.set(userId, value, Date.now() + TTL_MS);
    return value;
  }

  /** The account while its cached entry is fresh (null: known not to exist), else undefined. */
  cached(userId: string): AccountSnapshot | null | undefined {
    return this.cache.get(userId);
  }

  /** Drops the cached entry after a change made by this replica. */
  forget(userId: string): void {
    this.cache.delete(userId);
  }
}
