import { once } from 'node:events';
import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { loadConfig } from '@app/config';
import { HttpDrain } from './http-drain.service';

/** The status of `GET /` on a new connection to `port`, or the network error's code. */
function get(port: number): Promise<number | string> {
  return new Promise((resolve) => {
    request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
      .end();
  });
}

describe('HttpDrain', () => {
  let server: Server;
  let port: number;
  let drain: HttpDrain;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), SHUTDOWN_DELAY_MS: '400', SHUTDOWN_GRACE_MS: '1000' });
    server = createServer((_req, res) => res.end('ok'));
    drain = new HttpDrain({ httpAdapter: { getHttpServer: () => server } } as unknown as HttpAdapterHost, config);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    drain.onApplicationBootstrap();
  });
  afterEach(() => {
    jest.restoreAllMocks();
    if (server.listening) server.close();
  });

  it('says it is shutting down at once, serves new connections for SHUTDOWN_DELAY_MS more, then stops accepting', async () => {
    expect(drain.shuttingDown).toBe(false);
    const started = Date.now();
    const shutdown = drain.beforeApplicationShutdown();
    expect(drain.shuttingDown).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await get(port)).toBe(200);
    await shutdown;
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(await get(port)).toBe('ECONNREFUSED');
  });
});
