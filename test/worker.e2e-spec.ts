import { Test } from '@nestjs/testing';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import Redis from 'ioredis';
import { ConfigModule } from '@app/config';
import { DELIVERY_JOB_NAME, QueueModule, WEBHOOK_DELIVERIES_QUEUE, WebhookDeliveryJob } from '@app/queue';
import { built, PROJECT_ROOT } from './support';

const PREFIX = process.env.REDIS_PREFIX ?? '';

interface LogLine {
  msg?: string;
  heartbeat?: string;
}

function startWorker(env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  return spawn(
    process.execPath,
    [built('apps/worker/src/main.ts')],
    { cwd: PROJECT_ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env } },
  );
}

/** Resolves with the first JSON log line that matches, rejects if the process ends first. */
function waitForLog(child: ChildProcessWithoutNullStreams, matches: (line: LogLine) => boolean): Promise<LogLine> {
  return new Promise((done, fail) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const text of lines.filter((candidate) => candidate.startsWith('{'))) {
        const line = JSON.parse(text) as LogLine;
        if (matches(line)) done(line);
      }
    });
    child.once('exit', (code) => fail(new Error(`worker exited with ${code} before the expected log line`)));
  });
}

describe('worker process (docs/api.md#processes)', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { keyPrefix: `${PREFIX}:` });
  afterAll(async () => {
    await redis.quit();
  });

  it('logs ready, keeps a heartbeat key, and on SIGTERM removes it and exits 0', async () => {
    const worker = startWorker();
    // Error lines and stderr, shown beside the exit code should the stop fail.
    const errors: string[] = [];
    worker.stdout.on('data', (chunk: Buffer) =>
      errors.push(...chunk.toString().split('\n').filter((line) => /"level":"(error|fatal)"/.test(line))),
    );
    worker.stderr.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
    const ready = await waitForLog(worker, (line) => line.msg === 'Worker ready');
    expect(ready.heartbeat).toBe(`worker:heartbeat:${hostname()}:${worker.pid}`);
    expect(await redis.ttl(ready.heartbeat ?? '')).toBeGreaterThan(0);

    const exited = once(worker, 'exit');
    worker.kill('SIGTERM');
    const [code, signal] = await exited;
    expect({ code, signal, errors }).toEqual({ code: 0, signal: null, errors: [] });
    expect(await redis.exists(ready.heartbeat ?? '')).toBe(0);
  });

  it('stops with exit code 1 naming a bad variable', async () => {
    const worker = startWorker({ REDIS_PREFIX: 'not a prefix!' });
    let stderr = '';
    worker.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(worker, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('REDIS_PREFIX must be 1-64 characters');
  });
});

describe('queues', () => {
  it('keep their keys under `${REDIS_PREFIX}:bull`', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ConfigModule, QueueModule] }).compile();
    await moduleRef.init();
    const queue = moduleRef.get<Queue<WebhookDeliveryJob>>(getQueueToken(WEBHOOK_DELIVERIES_QUEUE));
    const job = await queue.add(DELIVERY_JOB_NAME, { deliveryId: 'dlv_test' }, { jobId: 'dlv_test' });
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      expect(await redis.hget(`${PREFIX}:bull:${WEBHOOK_DELIVERIES_QUEUE}:${job.id}`, 'data')).toBe(
        JSON.stringify({ deliveryId: 'dlv_test' }),
      );
    } finally {
      await redis.quit();
      await moduleRef.close();
    }
  });
});
