import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApiApp } from '../../apps/api/src/app.setup';
import type { TestApp } from '../support';

/** Builds the app with PUBLIC_URL set to `publicUrl`; the variable is restored once the configuration is read. */
async function withPublicUrl<T>(publicUrl: string, build: () => Promise<T>): Promise<T> {
  const previous = process.env.PUBLIC_URL;
  process.env.PUBLIC_URL = publicUrl;
  try {
    return await build();
  } finally {
    if (previous === undefined) delete process.env.PUBLIC_URL;
    else process.env.PUBLIC_URL = previous;
  }
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * The API listening on loopback with PUBLIC_URL `publicUrl`, or, by default, the very origin it
 * listens on: real OAuth clients check that the issuer is the address they discovered it at.
 */
export async function createTestAppWithPublicUrl(publicUrl?: string): Promise<TestApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = await withPublicUrl(publicUrl ?? url, () => createApiApp());
  await app.listen(port, '127.0.0.1');
  return { app, http: request(app.getHttpServer()), url, db: app.get(DataSource), logs: () => '', close: () => app.close() };
}
