import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks and their deliveries. A delivery keeps the exact body it sends (so that every
 * attempt signs the same bytes) and its attempts as a jsonb array: they are always read and
 * written together with the delivery, never queried on their own.
 */
export class CreateWebhooks1763730000000 implements MigrationInterface {
  name = 'CreateWebhooks1763730000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks (
        id text PRIMARY KEY,
        owner_id text NOT NULL REFERENCES users (id),
        url text NOT NULL,
        events text[] NOT NULL,
        secret text NOT NULL,
        status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
        description text,
        disabled_reason text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // GET /webhooks of one owner, newest first.
    await queryRunner.query(`CREATE INDEX webhooks_owner_created_at_idx ON webhooks (owner_id, created_at, id)`);
    // The relay matches each event against the enabled webhooks only.
    await queryRunner.query(`CREATE INDEX webhooks_enabled_idx ON webhooks (owner_id) WHERE status = 'enabled'`);

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        body text NOT NULL,
        test boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts jsonb NOT NULL DEFAULT '[]',
        next_attempt_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // One delivery per event and webhook: the relay may enqueue an event twice after a crash.
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_webhook_idx ON webhook_deliveries (event_id, webhook_id) WHERE NOT test`,
    );
    // GET /webhooks/{id}/deliveries, newest first.
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_webhook_created_at_idx ON webhook_deliveries (webhook_id, created_at, id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhooks`);
  }
}
