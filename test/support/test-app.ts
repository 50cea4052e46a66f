import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApiApp } from '../../apps/api/src/app.setup';
import type { ApiUnderTest } from './api-under-test';

export interface TestAppOptions {
  /** Keep every log line (level info and up) in memory, readable through `logs()`. */
  captureLogs?: boolean;
  /** Settings of this app alone, over the run's environment while the app reads its configuration. */
  env?: Record<string, string>;
  /** The loopback port to listen on, when a setting must name it before the app is built; any free one otherwise. */
  port?: number;
}

/** Runs `build` with `env` set over process.env, then puts the environment back as it was. */
async function withEnvironment<T>(env: Record<string, string>, build: () => Promise<T>): Promise<T> {
  const previous = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return await build();
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The API built in the suite's own process: for suites that reach into the app or set its configuration. */
export interface TestApp extends ApiUnderTest {
  app: INestApplication;
  /** The captured log output, one JSON object per line; empty unless `captureLogs` was set. */
  logs(): string;
}

/** The real API, built as production builds it, listening on a free loopback port. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const lines: string[] = [];
  const log = options.captureLogs
    ? { destination: { write: (line: string): void => void lines.push(line) }, level: 'info' as const }
    : undefined;
  const app = await withEnvironment(options.env ?? {}, () => createApiApp({ log }));
  await app.listen(options.port ?? 0, '127.0.0.1');
  const http = request(app.getHttpServer());
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, http, url, db: app.get(DataSource), logs: () => lines.join(''), close: () => app.close() };
}
