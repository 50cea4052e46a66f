import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, QueryRunner } from 'typeorm';
import { loadConfig } from '@app/config';
import { dataSourceOptions, Sql } from '@app/database';
import { EarlierOutcome, IdempotencyOutcomeRepository, OutcomeKey } from './idempotency-outcome.repository';
import { TransactionStatuses } from './transaction-statuses';
import { KeyedOutcome, registerWriteLedger, WriteLedger, writeLedgers, WriteLedgerSubscriber, WriteOutcome } from './write-ledger';

const NOTHING: WriteOutcome = { committed: false, transactionsInDoubt: [], statementsInDoubt: false };

/** Against the run's PostgreSQL, through the service's own DataSource options and the subscriber the API registers. */
describe('WriteLedger', () => {
  const table = `ledger_${randomBytes(4).toString('hex')}`;
  let dataSource: DataSource;
  let admin: Client;

  /** Runs `work` as a request whose ledger is started, and answers what its writes came to. */
  async function ledgerOf(work: () => Promise<unknown>): Promise<WriteOutcome> {
    const ledger = new WriteLedger();
    ledger.start();
    await writeLedgers.run(ledger, () => work().catch(() => undefined));
    return ledger.finish();
  }

  /** Ends, from another session, the backend that sleeps in a statement matching `match` (SQL `LIKE`), or of process `pid`. */
  async function terminateWhenAsleep(which: { match: string } | { pid: Promise<number> }): Promise<void> {
    const [condition, value] = 'pid' in which ? ['pid = $1', await which.pid] : ['query LIKE $1', which.match];
    for (let attempt = 0; attempt < 100; attempt++) {
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE ${condition} AND wait_event = 'PgSleep' AND pid <> pg_backend_pid()`,
        [value],
      );
      if (rows.some((row) => row.ended)) {
        // The pool drops the ended session once its socket closes; until then it could lend it again.
        await new Promise((resolve) => setTimeout(resolve, 200));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no backend slept as expected');
  }

  beforeAll(async () => {
    dataSource = await new DataSource(dataSourceOptions(loadConfig())).initialize();
    registerWriteLedger(dataSource);
    admin = new Client({ connectionString: loadConfig().DATABASE_URL });
    await admin.connect();
    await dataSource.query(`CREATE TABLE ${table} (n int, CONSTRAINT ${table}_once UNIQUE (n) DEFERRABLE INITIALLY DEFERRED)`);
    // At COMMIT, a row of 99 sleeps in a deferred trigger: long enough to end the session mid-COMMIT.
    await dataSource.query(
      `CREATE FUNCTION ${table}_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$`,
    );
    await dataSource.query(
      `CREATE CONSTRAINT TRIGGER ${table}_slow AFTER INSERT ON ${table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.n = 99) EXECUTE FUNCTION ${table}_slow()`,
    );
  });
  afterAll(async () => {
    await dataSource.query(`DROP TABLE ${table}`);
    await dataSource.query(`DROP FUNCTION ${table}_slow()`);
    await dataSource.destroy();
    await admin.end();
  });

  it('is fed by one subscriber, however often it is registered', () => {
    registerWriteLedger(dataSource);
    expect(dataSource.subscribers.filter((subscriber) => subscriber instanceof WriteLedgerSubscriber)).toHaveLength(1);
  });

  it('records nothing before it is started, nor reads', async () => {
    const unstarted = new WriteLedger();
    await writeLedgers.run(unstarted, () => dataSource.query(`INSERT INTO ${table} (n) VALUES (1)`));
    expect(unstarted.finish()).toEqual(NOTHING);
    expect(await ledgerOf(() => dataSource.query(`SELECT count(*) FROM ${table}`))).toEqual(NOTHING);
    expect(await ledgerOf(() => dataSource.transaction((manager) => manager.query(`SELECT n FROM ${table}`)))).toEqual(NOTHING);
  });

  it('counts a write outside a transaction, and a committed transaction, as taken effect', async () => {
    expect(await ledgerOf(() => dataSource.query(`INSERT INTO ${table} (n) VALUES (2)`))).toEqual({ ...NOTHING, committed: true });
    const committed = await ledgerOf(() => dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (3)`)));
    expect(committed).toEqual({ ...NOTHING, committed: true });
  });

  it('counts nothing for a transaction rolled back, or a COMMIT PostgreSQL refused', async () => {
    const rolledBack = await ledgerOf(() =>
      dataSource.transaction(async (manager) => {
        await manager.query(`INSERT INTO ${table} (n) VALUES (4)`);
        throw new Error('the handler failed');
      }),
    );
    expect(rolledBack).toEqual(NOTHING);
    // The deferred unique constraint fails at COMMIT, with an error PostgreSQL answers.
    const refused = await ledgerOf(() => dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (5), (5)`)));
    expect(refused).toEqual(NOTHING);
  });

  it('keeps the id of a transaction whose COMMIT lost its connection, which PostgreSQL then says it rolled back', async () => {
    let backend!: (pid: number) => void;
    const pid = new Promise<number>((resolve) => (backend = resolve));
    const [outcome] = await Promise.all([
      ledgerOf(() =>
        dataSource.transaction(async (manager) => {
          const [session]: Array<{ pid: number }> = await manager.query('SELECT pg_backend_pid() AS pid');
          backend(session.pid);
          await manager.query(`INSERT INTO ${table} (n) VALUES (99)`);
        }),
      ),
      terminateWhenAsleep({ pid }),
    ]);
    expect(outcome).toEqual({ ...NOTHING, transactionsInDoubt: [expect.stringMatching(/^\d+$/)] });
    const statuses = new TransactionStatuses(new Sql(dataSource));
    expect(await statuses.of(outcome.transactionsInDoubt)).toEqual(['aborted']);
    const [committed]: Array<{ id: string }> = await dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${table} (n) VALUES (6)`);
      return manager.query('SELECT pg_current_xact_id()::text AS id');
    });
    expect(await statuses.of([committed.id])).toEqual(['committed']);
    // An id PostgreSQL never issued (a failover that lost it) is one it cannot speak for.
    expect(await statuses.of([String(BigInt(committed.id) + 1_000_000_000n)])).toEqual([null]);
  });

  it('marks a write outside a transaction that lost its connection as in doubt, without an id', async () => {
    const marker = `lost_${randomBytes(4).toString('hex')}`;
    const [outcome] = await Promise.all([
      ledgerOf(() => dataSource.query(`INSERT INTO ${table} (n) SELECT 7 FROM pg_sleep(5) /* ${marker} */`)),
      terminateWhenAsleep({ match: `%${marker}%` }),
    ]);
    expect(outcome).toEqual({ ...NOTHING, statementsInDoubt: true });
  });

  it('counts a statement still unanswered when the request ends as in doubt', () => {
    const ledger = new WriteLedger();
    ledger.start();
    const runner = { isTransactionActive: false } as QueryRunner;
    ledger.sending(runner, `UPDATE ${table} SET n = 8`);
    const committing = { isTransactionActive: true } as QueryRunner;
    ledger.beforeCommit(committing, '1234');
    expect(ledger.finish()).toEqual({ committed: false, transactionsInDoubt: ['1234'], statementsInDoubt: true });
  });

  describe('with an Idempotency-Key', () => {
    /** The earlier request's answer, thrown in place of a write. */
    class SettledEarlier extends Error {
      constructor(readonly earlier: EarlierOutcome) {
        super('settled earlier');
      }
    }

    function keyOf(keyHash: string, claimToken: string): OutcomeKey {
      return { accountId: 'usr_ledger', keyHash, fingerprint: 'POST /v2/resources', claimToken, retentionSeconds: 60 };
    }

    /** Runs `work` as a keyed request: what its writes came to, its outcome row, and the error it ended with. */
    async function keyedLedgerOf(key: OutcomeKey, work: () => Promise<unknown>) {
      const ledger = new WriteLedger();
      ledger.start({ key, settledEarlier: (earlier) => new SettledEarlier(earlier) });
      const error = await writeLedgers.run(ledger, () => work().then(() => undefined, (failure: unknown) => failure));
      const writes = ledger.finish();
      const keyed: KeyedOutcome = ledger.keyedOutcome;
      return { writes, keyed, error };
    }

    async function outcomeRow(keyHash: string) {
      const rows: Array<{ claim_token: string; committed: boolean }> = await dataSource.query(
        `SELECT claim_token, transaction_id IS NOT NULL AS committed FROM idempotency_outcomes WHERE account_id = 'usr_ledger' AND key_hash = $1`,
        [keyHash],
      );
      return rows[0];
    }

    const count = async (n: number): Promise<number> => {
      const [row]: Array<{ count: number }> = await dataSource.query(`SELECT count(*)::int AS count FROM ${table} WHERE n = $1`, [n]);
      return row.count;
    };

    it('records the outcome in the write\'s own transaction: committed with it, rolled back with it, none when nothing was written', async () => {
      const hash = randomBytes(6).toString('hex');
      const rolledBack = await keyedLedgerOf(keyOf(hash, 'first'), () =>
        dataSource.transaction(async (manager) => {
          await manager.query(`INSERT INTO ${table} (n) VALUES (20)`);
          throw new Error('the handler failed');
        }),
      );
      expect(rolledBack.keyed).toEqual({ recorded: false, earlier: null });
      expect(await outcomeRow(hash)).toBeUndefined();

      const readOnly = await keyedLedgerOf(keyOf(hash, 'second'), () => dataSource.transaction((manager) => manager.query(`SELECT 1`)));
      expect(readOnly.keyed).toEqual({ recorded: false, earlier: null });
      expect(await outcomeRow(hash)).toBeUndefined();

      const committed = await keyedLedgerOf(keyOf(hash, 'third'), () =>
        dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (21)`)),
      );
      expect(committed.writes).toEqual({ ...NOTHING, committed: true });
      expect(committed.keyed).toEqual({ recorded: true, earlier: null });
      expect(await outcomeRow(hash)).toEqual({ claim_token: 'third', committed: true });
    });

    it('stops the write of a retry whose key an earlier request committed: its transaction rolls back and it answers what the row says', async () => {
      const hash = randomBytes(6).toString('hex');
      await keyedLedgerOf(keyOf(hash, 'first'), () => dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (22)`)));
      const retry = await keyedLedgerOf(keyOf(hash, 'retry'), () =>
        dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (22)`)),
      );
      expect(retry.error).toBeInstanceOf(SettledEarlier);
      expect((retry.error as SettledEarlier).earlier).toEqual({ sameRequest: true, answer: null, tookEffect: true });
      expect(retry.keyed.recorded).toBe(false);
      expect(retry.writes).toEqual(NOTHING);
      expect(await count(22)).toBe(1);
      expect(await outcomeRow(hash)).toEqual({ claim_token: 'first', committed: true });
    });

    it('marks the key before a write outside a transaction, and a retry stops before its own', async () => {
      const hash = randomBytes(6).toString('hex');
      const first = await keyedLedgerOf(keyOf(hash, 'first'), () => dataSource.query(`INSERT INTO ${table} (n) VALUES (23)`));
      expect(first.keyed).toEqual({ recorded: true, earlier: null });
      expect(await outcomeRow(hash)).toEqual({ claim_token: 'first', committed: false });
      const retry = await keyedLedgerOf(keyOf(hash, 'retry'), () => dataSource.query(`INSERT INTO ${table} (n) VALUES (23)`));
      expect((retry.error as SettledEarlier).earlier).toEqual({ sameRequest: true, answer: null, tookEffect: false });
      expect(retry.writes).toEqual(NOTHING);
      expect(await count(23)).toBe(1);
    });

    it("names the keyed transaction whose COMMIT lost its connection; its outcome row says it did not commit, as a committed one's says it did", async () => {
      const outcomes = new IdempotencyOutcomeRepository(new Sql(dataSource));
      const lostKey = keyOf(randomBytes(6).toString('hex'), 'lost');
      let backend!: (pid: number) => void;
      const pid = new Promise<number>((resolve) => (backend = resolve));
      const [lost] = await Promise.all([
        keyedLedgerOf(lostKey, () =>
          dataSource.transaction(async (manager) => {
            const [session]: Array<{ pid: number }> = await manager.query('SELECT pg_backend_pid() AS pid');
            backend(session.pid);
            await manager.query(`INSERT INTO ${table} (n) VALUES (99)`);
          }),
        ),
        terminateWhenAsleep({ pid }),
      ]);
      const [inDoubt] = lost.writes.transactionsInDoubt;
      expect(lost.writes).toEqual({ ...NOTHING, transactionsInDoubt: [expect.stringMatching(/^\d+$/)], outcomeTransactionInDoubt: inDoubt });
      expect(await outcomes.recordedIn(lostKey, inDoubt)).toBe(false);

      const committedKey = keyOf(randomBytes(6).toString('hex'), 'committed');
      const [committed]: Array<{ id: string }> = await writeLedgers.run(new WriteLedger(), () =>
        dataSource.transaction(async (manager) => {
          await manager.query(`INSERT INTO ${table} (n) VALUES (26)`);
          return manager.query('SELECT pg_current_xact_id()::text AS id');
        }),
      );
      await keyedLedgerOf(committedKey, () => dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (27)`)));
      const [row]: Array<{ id: string }> = await dataSource.query(
        `SELECT transaction_id::text AS id FROM idempotency_outcomes WHERE account_id = 'usr_ledger' AND key_hash = $1`,
        [committedKey.keyHash],
      );
      expect(await outcomes.recordedIn(committedKey, row.id)).toBe(true);
      // Another transaction's id, committed or not, is not the row's.
      expect(await outcomes.recordedIn(committedKey, committed.id)).toBe(false);
    });

    it('takes over the row of an expired key', async () => {
      const hash = randomBytes(6).toString('hex');
      await keyedLedgerOf(keyOf(hash, 'first'), () => dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (24)`)));
      await dataSource.query(`UPDATE idempotency_outcomes SET expires_at = now() - interval '1 second' WHERE key_hash = $1`, [hash]);
      const later = await keyedLedgerOf(keyOf(hash, 'later'), () =>
        dataSource.transaction((manager) => manager.query(`INSERT INTO ${table} (n) VALUES (25)`)),
      );
      expect(later.error).toBeUndefined();
      expect(later.keyed).toEqual({ recorded: true, earlier: null });
      expect(await count(25)).toBe(1);
      expect(await outcomeRow(hash)).toEqual({ claim_token: 'later', committed: true });
    });
  });
});
