import { WorkerHost } from '@nestjs/bullmq';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';

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
    await Promise.all(hosts.map((host) => host.worker.close()));
  }
}
