import { WorkerHost } from '@nestjs/bullmq';
import type { DiscoveryService } from '@nestjs/core';
import { Worker } from 'bullmq';
import { loadConfig } from '@app/config';
import { queueOptions } from '@app/queue';
import { JobDrain } from './job-drain.service';

/** A Nest processor host around a worker of a queue no job is ever added to. */
function hostOf(worker: Worker): WorkerHost {
  return Object.defineProperty(Object.create(WorkerHost.prototype) as WorkerHost, 'worker', { value: worker });
}

describe('JobDrain', () => {
  it('stops workers closed the moment they start without an unhandled "Connection is closed."', async () => {
    const options = queueOptions(loadConfig(), null);
    for (let round = 0; round < 20; round += 1) {
      const worker = new Worker('job-drain-spec', () => Promise.resolve(), { connection: options.connection, prefix: options.prefix });
      const discovery = { getProviders: () => [{ instance: hostOf(worker) }] } as unknown as DiscoveryService;
      // Stopped at a different moment of its connections' opening each round (INFO and CLIENT SETNAME in flight).
      await new Promise((resolve) => setTimeout(resolve, round / 4));
      await new JobDrain(discovery).onModuleDestroy();
      expect(worker.isRunning()).toBe(false);
    }
    // A command flushed at close would reject, or make the worker emit an unlistened error, on a later turn.
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
});
