import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context (`traceparent`, `tracestate`) of the request that wrote an event, so that
 * the worker's relay and deliveries join that request's trace; null when tracing was off. A
 * nullable column without a default is added without rewriting a row.
 */
export class AddEventTraceContext1763805000000 implements MigrationInterface {
  name = 'AddEventTraceContext1763805000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events ADD COLUMN trace_context jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP COLUMN trace_context`);
  }
}
