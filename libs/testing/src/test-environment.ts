import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import Redis from 'ioredis';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { dataSourceOptions } from '@app/database';

const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** argon2id's cheapest cost, which the configuration takes outside production only. */
export const TEST_PASSWORD_HASH_COST = { PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '2', PASSWORD_HASH_PARALLELISM: '1' };

/** Settings of a production process in a test: NODE_ENV=production at the cheapest cost it takes (OWASP's minimum). */
export const PRODUCTION_SETTINGS = { NODE_ENV: 'production', PASSWORD_HASH_MEMORY_KIB: '19456' };

function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * One database and one Redis prefix per test run, so two runs never collide. The variables are
 * set on process.env before Jest starts its workers, which inherit them.
 */
export async function createTestEnvironment(): Promise<void> {
  const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const database = `rms_test_${run}`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();

  Object.assign(process.env, {
    NODE_ENV: 'test',
    APP_ENV: 'test',
    DATABASE_URL: databaseUrl(database),
    REDIS_URL,
    REDIS_PREFIX: `rms_test_${run}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '1000',
    // Suites share one client IP; the rate-limit suites switch limits back on for themselves.
    RATE_LIMIT_ENABLED: 'false',
    // Every test account's password is hashed and verified once or more: argon2id at a test run's
    // cost, about a millisecond where production's takes a fifth of a second of a core.
    ...TEST_PASSWORD_HASH_COST,
  });

  const dataSource = new DataSource(dataSourceOptions(loadConfig(), true));
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.destroy();
}

/** Drops the run's database and deletes every Redis key under its prefix. */
export async function destroyTestEnvironment(): Promise<void> {
  const database = new URL(process.env.DATABASE_URL ?? '').pathname.slice(1);
  const prefix = process.env.REDIS_PREFIX;
  if (database.startsWith('rms_test_')) {
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
  }
  if (prefix?.startsWith('rms_test_')) await deleteRedisKeys(REDIS_URL, prefix);
}

/** A client of the run's Redis whose keys live under the run's prefix, as the service's do. */
export function connectRunRedis(): Redis {
  return new Redis(REDIS_URL, { keyPrefix: `${process.env.REDIS_PREFIX}:` });
}

/** Deletes every key under a Redis prefix (a test run's or a benchmark's). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

export interface SuiteEnvironment {
  /** The suite's own `DATABASE_URL` and `REDIS_PREFIX`, to pass to the processes it starts. */
  env: { DATABASE_URL: string; REDIS_PREFIX: string };
  destroy(): Promise<void>;
}

/**
 * A migrated database and a Redis prefix of one suite's own, beside the run's. A worker relays
 * every committed event of its database, so a suite that starts workers with settings of its
 * own (another Redis, another trusted certificate) gives them a database no other suite writes.
 */
export async function createSuiteEnvironment(name: string): Promise<SuiteEnvironment> {
  const runUrl = new URL(process.env.DATABASE_URL ?? '');
  const database = `${runUrl.pathname.slice(1)}_${name}`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();
  const env = { DATABASE_URL: databaseUrl(database), REDIS_PREFIX: `${process.env.REDIS_PREFIX}:${name}` };
  const dataSource = new DataSource(dataSourceOptions(loadConfig({ ...process.env, ...env }), true));
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.destroy();
  return {
    env,
    destroy: async () => {
      const cleanup = new Client({ connectionString: ADMIN_DATABASE_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await cleanup.end();
      await deleteRedisKeys(REDIS_URL, env.REDIS_PREFIX);
    },
  };
}

export interface LeftoverProcess {
  pid: number;
  command: string;
}

/**
 * The processes, other than Jest's own, still running with the run's Redis prefix in their
 * environment: every process a test starts inherits it, so these are what a test left behind.
 */
export async function findLeftoverProcesses(prefix: string): Promise<LeftoverProcess[]> {
  const found: LeftoverProcess[] = [];
  if (prefix === '') return found;
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const [environ, cmdline] = await Promise.all([readProcFile(pid, 'environ'), readProcFile(pid, 'cmdline')]);
    if (environ === null || cmdline === null) continue;
    const runs = environ.split('\0').some((variable) => variable === `REDIS_PREFIX=${prefix}` || variable.startsWith(`REDIS_PREFIX=${prefix}:`));
    const command = cmdline.split('\0').join(' ').trim();
    if (runs && !/jest-worker|processChild/.test(command)) found.push({ pid, command });
  }
  return found;
}

/** A file of /proc/<pid>, or null when the process is gone or not ours to read. */
async function readProcFile(pid: number, name: string): Promise<string | null> {
  try {
    return await readFile(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return null;
  }
}
