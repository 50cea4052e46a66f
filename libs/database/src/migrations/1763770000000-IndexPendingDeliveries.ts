import { MigrationInterface, QueryRunner } from 'typeorm';

/** The delivery sweeper looks for pending deliveries by when their attempt was due. */
export class IndexPendingDeliveries1763770000000 implements MigrationInterface {
  name = 'IndexPendingDeliveries1763770000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_pending_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhook_deliveries_pending_due_idx`);
  }
}
