import { Queue, Worker } from 'bullmq';
import { once } from 'node:events';
import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import { WebhookDeliveryRepository } from '@app/database';
import { DELIVERY_JOB_NAME, deliveryJobId, WEBHOOK_DELIVERIES_QUEUE, WebhookDeliveryJob } from '@app/queue';
import { DeliverySweeper } from '../apps/worker/src/delivery/delivery-sweeper.service';
import { createTestApp, createUser, TestApp, TestUser } from './support';

/**
 * The sweeper on the real database and Redis: a pending delivery whose attempt is long overdue
 * gets its job back. The queue has a prefix of its own, which no worker consumes.
 */
describe('delivery sweeper', () => {
  let t: TestApp;
  let db: DataSource;
  let queue: Queue<WebhookDeliveryJob>;
  let sweeper: DeliverySweeper;
  let owner: TestUser;
  const connection = { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
  const prefix = `${process.env.REDIS_PREFIX}:sweeper:bull`;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    queue = new Queue<WebhookDeliveryJob>(WEBHOOK_DELIVERIES_QUEUE, { connection, prefix });
    sweeper = new DeliverySweeper(t.app.get(WebhookDeliveryRepository), queue);
    owner = await createUser(t.http);
  });

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await t.close();
  });

  async function webhook(status: 'enabled' | 'disabled'): Promise<string> {
    const id = newId('wh');
    await db.query(
      `INSERT INTO webhooks (id, owner_id, url, events, secret, status) VALUES ($1, $2, 'https://hooks.example.com/in', '{resource.created}', 'a-secret-of-sixteen+', $3)`,
      [id, owner.id, status],
    );
    return id;
  }

  /** A pending delivery whose first attempt was due `minutes` ago. */
  async function pendingDelivery(webhookId: string, minutes: number): Promise<string> {
    const id = newId('dlv');
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, next_attempt_at)
       VALUES ($1, $2, $3, 'resource.created', '{}', now() - $4 * interval '1 minute')`,
      [id, webhookId, newId('evt'), minutes],
    );
    return id;
  }

  it('queues a lost job again, retries a failed one, and leaves the rest alone', async () => {
    const enabled = await webhook('enabled');
    const lost = await pendingDelivery(enabled, 2);
    const failed = await pendingDelivery(enabled, 2);
    const waiting = await pendingDelivery(enabled, 2);
    const recent = await pendingDelivery(enabled, 0);
    const ofDisabled = await pendingDelivery(await webhook('disabled'), 2);

    // A job that threw before recording its attempt (the database did not answer, say).
    await queue.add(DELIVERY_JOB_NAME, { deliveryId: failed }, { jobId: deliveryJobId(failed, 1) });
    const worker = new Worker<WebhookDeliveryJob>(
      WEBHOOK_DELIVERIES_QUEUE,
      (job) => (job.data.deliveryId === failed ? Promise.reject(new Error('database unreachable')) : Promise.resolve()),
      { connection, prefix, autorun: false },
    );
    const failedOnce = once(worker, 'failed');
    void worker.run();
    await failedOnce;
    await worker.close();
    // A job still waiting its turn (a backlog), which the sweeper must not touch.
    const queued = await queue.add(DELIVERY_JOB_NAME, { deliveryId: waiting }, { jobId: deliveryJobId(waiting, 1) });

    await sweeper.sweep();
    expect(await queue.getJob(deliveryJobId(lost, 1))).toMatchObject({ data: { deliveryId: lost } });
    expect(await (await queue.getJob(deliveryJobId(failed, 1)))?.getState()).toBe('waiting');
    expect(await (await queue.getJob(deliveryJobId(waiting, 1)))?.getState()).toBe('waiting');
    expect((await queue.getJob(deliveryJobId(waiting, 1)))?.timestamp).toBe(queued.timestamp);
    expect(await queue.getJob(deliveryJobId(recent, 1))).toBeUndefined();
    expect(await queue.getJob(deliveryJobId(ofDisabled, 1))).toBeUndefined();
    // A second sweep finds every job in place and queues nothing twice.
    const jobs = await queue.getJobCountByTypes('waiting');
    await sweeper.sweep();
    expect(await queue.getJobCountByTypes('waiting')).toBe(jobs);
  });
});
