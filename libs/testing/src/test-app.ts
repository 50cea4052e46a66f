import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApiApp } from '../../../apps/api/src/app.setup';

export interface TestApp {
  app: INestApplication;
  http: TestAgent;
  close(): Promise<void>;
}

/** The real API, built as production builds it, listening on a free loopback port. */
export async function createTestApp(): Promise<TestApp> {
  const app = await createApiApp();
  await app.listen(0, '127.0.0.1');
  const http = request(app.getHttpServer());
  return { app, http, close: () => app.close() };
}
