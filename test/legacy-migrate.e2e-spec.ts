import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { CliResult, createTestApp, createUser, expectError, runCli, TestApp, TestUser } from './support';

/** Legacy tokens: the import-legacy-tokens command and POST /v2/auth/migrate (docs/api.md#legacy-migration). */

const cli = runCli;

const legacyToken = (): string => `v1tok_${randomBytes(16).toString('hex')}`;

describe('legacy tokens', () => {
  let t: TestApp;
  let directory: string;

  beforeAll(async () => {
    t = await createTestApp();
    directory = await mkdtemp(join(tmpdir(), 'legacy-tokens-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
    await t.close();
  });

  async function fileOf(lines: string[]): Promise<string> {
    const path = join(directory, `${randomBytes(4).toString('hex')}.csv`);
    await writeFile(path, `${lines.join('\n')}\n`);
    return path;
  }

  const migrate = (token?: string) => {
    const request = t.http.post('/v2/auth/migrate');
    return token === undefined ? request : request.set('X-Auth-Token', token);
  };

  describe('import-legacy-tokens', () => {
    let owner: TestUser;
    let other: TestUser;
    const good = [legacyToken(), legacyToken()];
    let result: CliResult;

    beforeAll(async () => {
      owner = await createUser(t.http);
      other = await createUser(t.http);
      const path = await fileOf([
        'token,email',
        `${good[0]},${owner.email}`,
        'just-one-field',
        `${legacyToken()},nobody-${owner.username}@example.com`,
        '',
        `${good[1]},${other.email.toUpperCase()}`,
        `${legacyToken()},not-an-email`,
      ]);
      result = await cli(['import-legacy-tokens', '--file', path]);
    }, 60_000);

    it('imports the good lines, reports each bad one by number, and exits 0', () => {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Imported 2 legacy tokens');
      expect(result.stderr).toContain('line 3: expected "token,email"');
      expect(result.stderr).toContain(`line 4: no account has the email nobody-${owner.username}@example.com`);
      expect(result.stderr).toContain('line 7: the email is not a valid address');
      expect(result.stderr).not.toMatch(/line (2|5|6):/);
    });

    it('stores only SHA-256 hashes, tied to the accounts', async () => {
      const rows: Array<{ token_hash: string; user_id: string; used_at: Date | null }> = await t.app
        .get(DataSource)
        .query('SELECT token_hash, user_id, used_at FROM legacy_tokens WHERE user_id = ANY($1) ORDER BY user_id', [[owner.id, other.id]]);
      const expected = [
        { token_hash: createHash('sha256').update(good[0]).digest('hex'), user_id: owner.id, used_at: null },
        { token_hash: createHash('sha256').update(good[1]).digest('hex'), user_id: other.id, used_at: null },
      ].sort((a, b) => a.user_id.localeCompare(b.user_id));
      expect(rows).toEqual(expected);
    });

    it('exits 1 when no line can be imported, and when the file cannot be read', async () => {
      const bad = await cli(['import-legacy-tokens', '--file', await fileOf(['only-token', `x,nobody-${owner.username}@example.com`])]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('line 1:');
      expect(bad.stderr).toContain('line 2:');
      const missing = await cli(['import-legacy-tokens', '--file', join(directory, 'missing.csv')]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('Cannot read');
    }, 60_000);

    it('leaves tokens already imported as they are when a file is imported again', async () => {
      const again = await cli(['import-legacy-tokens', '--file', await fileOf([`${good[0]},${other.email}`])]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('Imported 0 legacy tokens; 1 were already imported');
      const pair = await migrate(good[0]).expect(200);
      const me = await t.http.get('/v2/users/me').set('Authorization', `Bearer ${pair.body.data.access_token}`).expect(200);
      expect(me.body.data.id).toBe(owner.id);
    }, 60_000);
  });

  describe('POST /v2/auth/migrate', () => {
    let user: TestUser;
    let tokens: string[];

    beforeAll(async () => {
      user = await createUser(t.http);
      tokens = [legacyToken(), legacyToken(), legacyToken()];
      const result = await cli(['import-legacy-tokens', '--file', await fileOf(tokens.map((token) => `${token},${user.email}`))]);
      expect(result.code).toBe(0);
    }, 60_000);

    it('exchanges a legacy token once for a token pair of its account', async () => {
      const res = await migrate(tokens[0]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: { access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'Bearer', expires_in: 900 },
      });
      const me = await t.http.get('/v2/users/me').set('Authorization', `Bearer ${res.body.data.access_token}`).expect(200);
      expect(me.body.data.id).toBe(user.id);
      const refreshed = await t.http.post('/v2/auth/refresh').send({ refresh_token: res.body.data.refresh_token });
      expect(refreshed.status).toBe(200);
    });

    it('refuses a token the second time', async () => {
      expect((await migrate(tokens[1])).status).toBe(200);
      expectError(await migrate(tokens[1]), 401, 'authentication_required', /already been exchanged/);
    });

    it('gives one of two concurrent exchanges of a token a pair and the other a 401', async () => {
      const statuses = (await Promise.all([migrate(tokens[2]), migrate(tokens[2])])).map((res) => res.status).sort();
      expect(statuses).toEqual([200, 401]);
    });

    it('refuses an unknown token, an empty header and a missing header with 401', async () => {
      expectError(await migrate(legacyToken()), 401, 'authentication_required', /not valid/);
      expectError(await migrate(''), 401, 'authentication_required', /X-Auth-Token/);
      expectError(await migrate(), 401, 'authentication_required', /X-Auth-Token/);
    });

    it('does not take the legacy token as a credential anywhere else', async () => {
      expectError(await t.http.get('/v2/users/me').set('X-Auth-Token', tokens[0]), 401, 'authentication_required', /migrate/);
    });
  });
});
