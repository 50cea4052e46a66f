import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each write with an Idempotency-Key came to, written in the write's own transaction: a
 * retry after the process died between COMMIT and the key's completion in Redis finds it and
 * does not write again. `response` is the answer once it was captured; `transaction_id` is null
 * for a mark made before a write outside a transaction. Rows expire with the keys, 24 hours.
 */
export class CreateIdempotencyOutcomes1763812000000 implements MigrationInterface {
  name = 'CreateIdempotencyOutcomes1763812000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_outcomes (
        account_id text NOT NULL,
        key_hash text NOT NULL,
        fingerprint text NOT NULL,
        claim_token text NOT NULL,
        transaction_id xid8,
        response jsonb,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, key_hash)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_outcomes_expires_at ON idempotency_outcomes (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_outcomes`);
  }
}
