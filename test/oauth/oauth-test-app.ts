import { createTestApp, freePort, TestApp } from '../support';

/**
 * The API listening on loopback with PUBLIC_URL `publicUrl`, or, by default, the very origin it
 * listens on: real OAuth clients check that the issuer is the address they discovered it at.
 */
export async function createTestAppWithPublicUrl(publicUrl?: string): Promise<TestApp> {
  const port = await freePort();
  return createTestApp({ port, env: { PUBLIC_URL: publicUrl ?? `http://127.0.0.1:${port}` } });
}
