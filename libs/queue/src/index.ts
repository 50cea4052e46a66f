export * from './queue.module';
export * from './queues';
export * from './delivery-jobs';
