import { WorkerHost } from '@nestjs/bullmq';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Worker } from 'bullmq';

/** How long a worker whose Redis connections are still opening is given to finish opening them. */
export const CONNECTIONS_READY_WAIT_MS = 2000;

/**
 * Closes every BullMQ worker first on shutdown: `close()` stops taking jobs and waits for the
 * ones in flight, while PostgreSQL and Redis are still open (they close in the later
 * shutdown hooks). A job interrupted harder than that is returned to its queue by BullMQ's
 * stalled-job check.
 */
@Injectable()
export class JobDrain implements OnModuleDestroy {
  constructor(private readonly discovery: DiscoveryService) {}

  async onModuleDestroy(): Promise<void> {
    const hosts = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is WorkerHost => instance instanceof WorkerHost);
    await Promise.all(hosts.map((host) => closeWhenOpen(host.worker)));
  }
}

/**
 * BullMQ closes a connection that is still opening with a hard disconnect, which rejects the
 * commands of its opening (INFO, CLIENT SETNAME) with "Connection is closed." and nothing
 * awaits them: a worker stopped just after it started would end on an unhandled rejection.
 * Its connections are given a moment to open, so that close() takes the orderly QUIT; a Redis
 * that does not answer within it is disconnected as before.
 */
async function closeWhenOpen(worker: Worker): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, CONNECTIONS_READY_WAIT_MS)));
  await Promise.race([worker.waitUntilReady().catch(() => undefined), gaveUp]);
  clearTimeout(timer);
  await worker.close();
}
