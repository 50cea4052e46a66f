import { ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { BUILT_API, built, freePort, PRODUCTION_SETTINGS, PROJECT_ROOT } from './support';

/**
 * Operators start the built service with `npm run start:api` / `start:worker` and the
 * environment alone, on a database that may not exist yet (docs/api.md#processes: migrations run on start).
 */
const SERVER_URL = new URL(process.env.DATABASE_URL ?? '');

function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

async function waitUntilReady(url: string, child: ChildProcess): Promise<Response> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.status === 200) return response;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never became ready`);
}

describe('npm run start:api on an empty database', () => {
  const database = `${new URL(process.env.DATABASE_URL ?? '').pathname.slice(1)}_fresh`;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    // `npm test` builds before Jest runs; a lone `npx jest` needs `npm run build` first.
    if (!existsSync(BUILT_API)) throw new Error(`${BUILT_API} is missing: run npm run build`);
  });

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.pid !== undefined) {
        // The whole group: `npm run` starts the API as a child of its own, which SIGTERM to npm leaves running.
        process.kill(-child.pid, 'SIGTERM');
        await once(child, 'exit');
      }
    }
    await dropDatabase(database);
  }, 30000);

  it('refuses to start without JWT_SECRET when NODE_ENV is not explicitly development', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl(database) };
    delete env.JWT_SECRET;
    delete env.NODE_ENV;
    const api = spawn(process.execPath, [BUILT_API], { cwd: PROJECT_ROOT, env, detached: true });
    children.push(api);
    let stderr = '';
    api.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(api, 'exit');
    expect(code).toBe(1);
    expect(stderr).toMatch(/JWT_SECRET .*is required unless NODE_ENV=development is set/);
  });

  it('creates the database, migrates it, reports ready and registers a user', async () => {
    const port = await freePort();
    const env = { ...process.env, DATABASE_URL: databaseUrl(database), PORT: String(port), ...PRODUCTION_SETTINGS };
    const api = spawn('npm', ['run', '--silent', 'start:api'], { cwd: PROJECT_ROOT, env, stdio: 'ignore', detached: true });
    children.push(api);

    const ready = await waitUntilReady(`http://127.0.0.1:${port}/health/ready`, api);
    // The worker entry depends on the suites running beside this one, and never fails readiness.
    expect(await ready.json()).toEqual({
      data: {
        status: 'ok',
        checks: { database: { status: 'up' }, redis: { status: 'up' }, worker: expect.objectContaining({ status: expect.any(String) }) },
      },
    });

    const registered = await fetch(`http://127.0.0.1:${port}/v2/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', username: 'first_user', password: 'a long passphrase' }),
    });
    expect(registered.status).toBe(201);
    const body = (await registered.json()) as { data: { id: string; email: string } };
    expect(body.data).toMatchObject({ email: 'first@example.com' });
    expect(body.data.id).toMatch(/^usr_/);
  }, 60000);
});

describe('settings at start (docs/api.md#processes)', () => {
  it('npm start takes .env for what the shell leaves unset, and a variable set in the shell wins', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'rms-start-'));
    try {
      writeFileSync(join(directory, '.env'), 'PORT=3000\nLOG_LEVEL=debug\nPUBLIC_URL="http://localhost:3000"\n');
      // The part of scripts/start.sh that reads .env, as start.sh runs it.
      const script = `. ${JSON.stringify(join(PROJECT_ROOT, 'scripts/load-env.sh'))}; load_env_file .env; echo "$PORT $LOG_LEVEL $PUBLIC_URL"`;
      const { stdout } = await promisify(execFile)('bash', ['-c', script], {
        cwd: directory,
        env: { PATH: process.env.PATH, PORT: '3411' },
      });
      expect(stdout).toBe('3411 debug http://localhost:3000\n');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('stops the API at start, naming CORS_ORIGINS, when an entry is not an origin', async () => {
    const api = spawn(process.execPath, [built('apps/api/src/main.ts')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CORS_ORIGINS: 'https://app.example.com,https://admin.example.com/app' },
    });
    let stderr = '';
    api.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(api, 'exit');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^ {2}- CORS_ORIGINS must be comma-separated origins/m);
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 60000);
});
