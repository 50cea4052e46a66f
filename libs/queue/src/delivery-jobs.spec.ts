import { DELIVERY_JOB_NAME, DELIVERY_JOB_OPTIONS } from './queues';
import { deliveryJob, deliveryJobId } from './delivery-jobs';

/** Every producer of delivery jobs builds them here: the same name, options and id for the same attempt. */
describe('deliveryJob', () => {
  it('names the attempt by delivery and number, with the queue options', () => {
    const job = deliveryJob('dlv_1', 2, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(job.name).toBe(DELIVERY_JOB_NAME);
    expect(job.opts).toEqual({ ...DELIVERY_JOB_OPTIONS, jobId: deliveryJobId('dlv_1', 2) });
    expect(job.data).toEqual({ deliveryId: 'dlv_1', traceContext: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
  });

  it('delays a scheduled retry, and only that', () => {
    expect(deliveryJob('dlv_1', 3, undefined, 4000).opts.delay).toBe(4000);
    expect(deliveryJob('dlv_1', 1).opts).not.toHaveProperty('delay');
  });

  it('gives the same attempt the same id, so that a second enqueue is a no-op', () => {
    expect(deliveryJob('dlv_1', 1).opts.jobId).toBe(deliveryJob('dlv_1', 1).opts.jobId);
    expect(deliveryJob('dlv_1', 1).opts.jobId).not.toBe(deliveryJob('dlv_1', 2).opts.jobId);
  });
});
