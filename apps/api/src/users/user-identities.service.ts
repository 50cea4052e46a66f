import { Injectable } from '@nestjs/common';
import { UserIdentity, UserRepository } from '../auth/user.repository';

export type { UserIdentity } from '../auth/user.repository';

/** Who users are (id, username, email), for the contexts that show them, such as member lists. */
@Injectable()
export class UserIdentities {
  constructor(private readonly users: UserRepository) {}

  /** Each of these users that exists, by id, in one read; none for no ids. */
  async byId(ids: readonly string[]): Promise<ReadonlyMap<string, UserIdentity>> {
    if (ids.length === 0) return new Map();
    const identities = await this.users.findIdentities(ids);
    return new Map(identities.map((identity) => [identity.id, identity]));
  }
}
