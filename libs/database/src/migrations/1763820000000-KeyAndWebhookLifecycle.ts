import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lifecycle of keys and webhooks (docs/api.md#api-keys, docs/webhooks.md): an API key's
 * expiry, a webhook's previous secret while a rotation overlaps, the `paused` status, and where a
 * delivery's current schedule of attempts began (a recovery starts a fresh one and keeps the
 * earlier attempts). The new indexes answer the filtered lists from an index each:
 * `GET /webhooks/{id}/deliveries?status=|event_type=` and `GET /events?type=`.
 */
export class KeyAndWebhookLifecycle1763820000000 implements MigrationInterface {
  name = 'KeyAndWebhookLifecycle1763820000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN expires_at timestamptz(3)`);

    await queryRunner.query(`ALTER TABLE webhooks ADD COLUMN previous_secret text, ADD COLUMN previous_secret_expires_at timestamptz(3)`);
    await queryRunner.query(`ALTER TABLE webhooks DROP CONSTRAINT webhooks_status_check`);
    await queryRunner.query(
      `ALTER TABLE webhooks ADD CONSTRAINT webhooks_status_check CHECK (status IN ('enabled', 'disabled', 'paused'))`,
    );
    // The relay matches events against enabled and paused webhooks (a paused one holds its deliveries).
    await queryRunner.query(`CREATE INDEX webhooks_receiving_idx ON webhooks (owner_id) WHERE status <> 'disabled'`);
    await queryRunner.query(`DROP INDEX webhooks_enabled_idx`);

    // A constant default: no row is rewritten.
    await queryRunner.query(`ALTER TABLE webhook_deliveries ADD COLUMN schedule_start integer NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_webhook_status_idx ON webhook_deliveries (webhook_id, status, created_at, id)`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_webhook_type_idx ON webhook_deliveries (webhook_id, event_type, created_at, id)`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_webhook_status_type_idx ON webhook_deliveries (webhook_id, status, event_type, created_at, id)`,
    );

    await queryRunner.query(`CREATE INDEX events_type_idx ON events (type, id)`);
    await queryRunner.query(`CREATE INDEX events_owner_type_idx ON events (owner_id, type, id)`);
    await queryRunner.query(`CREATE INDEX events_organization_type_idx ON events (organization_id, type, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX events_organization_type_idx`);
    await queryRunner.query(`DROP INDEX events_owner_type_idx`);
    await queryRunner.query(`DROP INDEX events_type_idx`);
    await queryRunner.query(`DROP INDEX webhook_deliveries_webhook_status_type_idx`);
    await queryRunner.query(`DROP INDEX webhook_deliveries_webhook_type_idx`);
    await queryRunner.query(`DROP INDEX webhook_deliveries_webhook_status_idx`);
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP COLUMN schedule_start`);
    await queryRunner.query(`UPDATE webhooks SET status = 'enabled' WHERE status = 'paused'`);
    await queryRunner.query(`CREATE INDEX webhooks_enabled_idx ON webhooks (owner_id) WHERE status = 'enabled'`);
    await queryRunner.query(`DROP INDEX webhooks_receiving_idx`);
    await queryRunner.query(`ALTER TABLE webhooks DROP CONSTRAINT webhooks_status_check`);
    await queryRunner.query(`ALTER TABLE webhooks ADD CONSTRAINT webhooks_status_check CHECK (status IN ('enabled', 'disabled'))`);
    await queryRunner.query(`ALTER TABLE webhooks DROP COLUMN previous_secret, DROP COLUMN previous_secret_expires_at`);
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN expires_at`);
  }
}
