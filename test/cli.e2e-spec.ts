import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestApp, createUser, newCredentials, runCli, TestApp } from './support';

const cli = runCli;

function databaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.pathname = `/${name}`;
  return url.toString();
}

async function withMaintenanceDatabase<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('admin CLI (docs/api.md#users, docs/api.md#processes)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function me(email: string, password: string): Promise<{ id: string; role: string; plan: string }> {
    const login = await t.http.post('/v2/auth/login').send({ email, password }).expect(200);
    const response = await t.http
      .get('/v2/users/me')
      .set('Authorization', `Bearer ${login.body.data.access_token}`)
      .expect(200);
    return response.body.data;
  }

  describe('create-admin', () => {
    it('creates an admin who can log in, and prints the id', async () => {
      const account = newCredentials();
      const result = await cli(['create-admin', '--email', account.email, '--password', account.password, '--username', account.username]);
      expect(result.code).toBe(0);
      const id = result.stdout.trim();
      expect(id).toMatch(/^usr_[0-9A-Z]{26}$/);
      const user = await me(account.email, account.password);
      expect(user).toMatchObject({ id, role: 'admin', plan: 'free' });
    });

    it('derives the username from the email when none is given', async () => {
      const account = newCredentials();
      const email = `Ops.${account.username}@example.com`;
      const result = await cli(['create-admin', '--email', email, '--password', account.password]);
      expect(result.code).toBe(0);
      const login = await t.http.post('/v2/auth/login').send({ email, password: account.password }).expect(200);
      const response = await t.http
        .get('/v2/users/me')
        .set('Authorization', `Bearer ${login.body.data.access_token}`)
        .expect(200);
      expect(response.body.data.username).toBe(`ops_${account.username}`);
    });

    it('refuses an email that already has an account, and leaves that account as it was', async () => {
      const existing = await createUser(t.http);
      const result = await cli(['create-admin', '--email', existing.email.toUpperCase(), '--password', 'another-password-1']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('already has an account; pass --promote-existing');
      expect(await me(existing.email, existing.password)).toMatchObject({ id: existing.id, role: 'user' });
    });

    it('promotes an existing account only with --promote-existing, keeping its password', async () => {
      const existing = await createUser(t.http);
      const result = await cli(['create-admin', '--email', existing.email.toUpperCase(), '--promote-existing']);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(existing.id);
      const user = await me(existing.email, existing.password);
      expect(user).toMatchObject({ id: existing.id, role: 'admin' });
    });

    it('reads the password from standard input with --password-stdin', async () => {
      const account = newCredentials();
      const result = await cli(['create-admin', '--email', account.email, '--password-stdin'], {}, `${account.password}\n`);
      expect(result.code).toBe(0);
      expect(await me(account.email, account.password)).toMatchObject({ id: result.stdout.trim(), role: 'admin' });
    });

    it('refuses --password together with --password-stdin', async () => {
      const account = newCredentials();
      const result = await cli(['create-admin', '--email', account.email, '--password', account.password, '--password-stdin'], {}, 'x');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('password: give --password or --password-stdin, not both');
    });

    it('--promote-existing with an unknown email and no password creates nothing', async () => {
      const result = await cli(['create-admin', '--email', newCredentials().email, '--promote-existing']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('password: is required');
    });

    it('refuses input that registration refuses, naming each field', async () => {
      const result = await cli(['create-admin', '--email', 'not-an-email', '--password', 'short', '--username', 'No Spaces']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('email: must be a valid email address');
      expect(result.stderr).toContain('password: must be 10-128 characters');
      expect(result.stderr).toContain('username: must be 3-30 characters');
    });

    it('refuses a username that is taken', async () => {
      const existing = await createUser(t.http);
      const account = newCredentials();
      const result = await cli(['create-admin', '--email', account.email, '--password', account.password, '--username', existing.username]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('username: is already taken');
      await t.http.post('/v2/auth/login').send({ email: account.email, password: account.password }).expect(401);
    });

    it('requires --email, and a password to create', async () => {
      const withoutEmail = await cli(['create-admin', '--password', 'a long passphrase']);
      expect(withoutEmail.code).toBe(1);
      expect(withoutEmail.stderr).toContain("required option '--email <email>' not specified");
      const result = await cli(['create-admin', '--email', newCredentials().email]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('password: is required to create an account');
    });
  });

  describe('set-plan', () => {
    it('changes the plan of the account with that email', async () => {
      const user = await createUser(t.http);
      const result = await cli(['set-plan', '--email', user.email, '--plan', 'enterprise']);
      expect(result.code).toBe(0);
      expect(await me(user.email, user.password)).toMatchObject({ plan: 'enterprise', role: 'user' });
    });

    it('refuses an unknown plan with exit code 1 and leaves the plan', async () => {
      const user = await createUser(t.http);
      const result = await cli(['set-plan', '--email', user.email, '--plan', 'gold']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('plan: must be one of free, pro, enterprise');
      expect(await me(user.email, user.password)).toMatchObject({ plan: 'free' });
    });

    it('refuses an unknown email with exit code 1', async () => {
      const result = await cli(['set-plan', '--email', newCredentials().email, '--plan', 'pro']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/User .+ was not found/);
    });
  });

  describe('settings: the environment, then .env (docs/api.md#processes)', () => {
    /** A fresh shell in a directory of its own, with this .env (none when null). */
    const directories: string[] = [];
    function directoryWith(envFile: string | null): string {
      const directory = mkdtempSync(join(tmpdir(), 'rms-cli-'));
      directories.push(directory);
      if (envFile !== null) writeFileSync(join(directory, '.env'), envFile);
      return directory;
    }
    afterAll(() => {
      for (const directory of directories) rmSync(directory, { recursive: true, force: true });
    });

    it.each([
      ['--help', 'create-admin'],
      ['create-admin --help', '--password-stdin'],
    ])('`%s` works with no configuration and no .env, and exits 0', async (command, shown) => {
      const result = await cli(command.split(' '), {}, '', { cwd: directoryWith(null), bareEnvironment: true });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(shown);
      expect(result.stderr).toBe('');
    });

    it('names a bad or missing setting without a stack trace', async () => {
      const result = await cli(['set-plan', '--email', 'nobody@example.com', '--plan', 'pro'], { PORT: 'abc' }, '', {
        cwd: directoryWith(null),
        bareEnvironment: true,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^Invalid configuration:\n/);
      expect(result.stderr).toMatch(/^ {2}- PORT /m);
      expect(result.stderr).toMatch(/^ {2}- JWT_SECRET .*is required/m);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    });

    it('reads .env from the working directory, and a variable set in the shell wins over it', async () => {
      const user = await createUser(t.http);
      // JWT_SECRET comes from .env alone; DATABASE_URL from both, and .env's would fail at once.
      const envFile = [`JWT_SECRET=${'s'.repeat(32)}`, 'NODE_ENV=test', 'DATABASE_URL=mysql://not-this-one/rms', ''].join('\n');
      const shell = { DATABASE_URL: process.env.DATABASE_URL, REDIS_PREFIX: process.env.REDIS_PREFIX };
      const result = await cli(['set-plan', '--email', user.email, '--plan', 'pro'], shell, '', {
        cwd: directoryWith(envFile),
        bareEnvironment: true,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(await me(user.email, user.password)).toMatchObject({ plan: 'pro' });
    });
  });

  describe('db:prepare', () => {
    const name = `rms_test_prepare_${randomBytes(4).toString('hex')}`;
    afterAll(async () => {
      await withMaintenanceDatabase((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    });

    it('creates a missing database and migrates it, and does nothing the second time', async () => {
      const env = { DATABASE_URL: databaseUrl(name) };
      const first = await cli(['db:prepare'], env);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`Created database ${name}`);
      expect(first.stdout).toContain('Applied migration CreateAccounts');

      const client = new Client({ connectionString: databaseUrl(name) });
      await client.connect();
      const migrations = await client.query<{ name: string }>('SELECT name FROM migrations');
      const users = await client.query("SELECT to_regclass('users') AS users");
      await client.end();
      expect(migrations.rows.map((row) => row.name)).toContain('CreateAccounts1763700000000');
      expect(users.rows[0].users).toBe('users');

      const second = await cli(['db:prepare'], env);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(`Database ${name} exists`);
      expect(second.stdout).toContain('No pending migrations');
    });
  });
});
