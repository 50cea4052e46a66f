import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wakes the outbox relay: every statement that inserts events sends a notification on
 * `events_committed`, which PostgreSQL delivers at commit (never for a rolled-back change) and
 * sends once per transaction however many statements raised it.
 */
export class NotifyCommittedEvents1763760000000 implements MigrationInterface {
  name = 'NotifyCommittedEvents1763760000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION notify_events_committed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('events_committed', '');
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER events_committed AFTER INSERT ON events
        FOR EACH STATEMENT EXECUTE FUNCTION notify_events_committed()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER events_committed ON events`);
    await queryRunner.query(`DROP FUNCTION notify_events_committed()`);
  }
}
