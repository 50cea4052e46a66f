import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { TIER_API_URL, TIER_DATABASE_URL } from '@app/testing/tier-services';

/** What a suite that speaks HTTP needs of the API it tests, wherever that API runs. */
export interface ApiUnderTest {
  http: TestAgent;
  /** The API's origin (`http://127.0.0.1:<port>`), for clients such as `fetch`. */
  url: string;
  /** The API's database, for what a test sets up or checks beneath the API. */
  db: DataSource;
  close(): Promise<void>;
}

function tierSetting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the shared API runs in the api tier only (npm run test:api)`);
  return value;
}

/**
 * The api tier's one built API (test/api-tier.global-setup.ts), shared by the suites that only
 * speak HTTP: each suite makes accounts of its own, and reaches the API's database beside it.
 */
export async function connectTierApi(): Promise<ApiUnderTest> {
  const url = tierSetting(TIER_API_URL);
  const db = new DataSource({ type: 'postgres', url: tierSetting(TIER_DATABASE_URL), poolSize: 2 });
  await db.initialize();
  return { http: request(url), url, db, close: () => db.destroy() };
}
