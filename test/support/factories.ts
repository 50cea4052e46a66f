import { randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import type { DataSource } from 'typeorm';
import type { Plan, PlatformRole } from '@app/common';

export interface TestUser {
  id: string;
  email: string;
  username: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

let sequence = 0;

/** A fresh unique email, username and password. */
export function newCredentials(): { email: string; username: string; password: string } {
  sequence += 1;
  const tag = `${randomBytes(4).toString('hex')}${sequence}`;
  return { email: `user_${tag}@example.com`, username: `user_${tag}`, password: `password-${tag}` };
}

/**
 * Account settings written straight to the API's database between registration and login:
 * before the account's first authenticated request, so no replica has cached the old ones.
 */
export interface CreateUserOptions {
  db: DataSource;
  /** `enterprise` keeps tests that make many requests clear of the free plan's rate limit. */
  plan?: Plan;
  role?: PlatformRole;
}

/** Registers and logs in a new user through the API. */
export async function createUser(http: TestAgent, options?: CreateUserOptions): Promise<TestUser> {
  const credentials = newCredentials();
  const registered = await http.post('/v2/auth/register').send(credentials).expect(201);
  const id = (registered.body as { data: { id: string } }).data.id;
  if (options) {
    await options.db.query('UPDATE users SET plan = COALESCE($2, plan), role = COALESCE($3, role) WHERE id = $1', [
      id,
      options.plan ?? null,
      options.role ?? null,
    ]);
  }
  const login = await http
    .post('/v2/auth/login')
    .send({ email: credentials.email, password: credentials.password })
    .expect(200);
  return {
    id,
    ...credentials,
    accessToken: (login.body as { data: { access_token: string } }).data.access_token,
    refreshToken: (login.body as { data: { refresh_token: string } }).data.refresh_token,
  };
}
