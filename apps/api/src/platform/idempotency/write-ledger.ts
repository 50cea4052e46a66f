import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseError, type PoolClient } from 'pg';
import type { AfterQueryEvent, BeforeQueryEvent, DataSource, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent } from 'typeorm';
import type { SqlStatement, SqlStatements } from '@app/database';
import { EarlierOutcome, earlierOutcome, IDEMPOTENCY_OUTCOME_SQL, OutcomeKey, RecordedOutcomeRow } from './idempotency-outcome.repository';

/** What one request's writes came to, by the answers PostgreSQL gave them. */
export interface WriteOutcome {
  /** A COMMIT, or a write outside a transaction, was answered: something took effect. */
  committed: boolean;
  /** Transactions whose COMMIT went out and was never answered, by id (`xid8`): PostgreSQL knows how each ended. */
  transactionsInDoubt: string[];
  /** A write outside a transaction went out and was never answered; it has no id to ask about. */
  statementsInDoubt: boolean;
  /**
   * The one of `transactionsInDoubt` that holds the key's outcome row, if any. Its row, not its
   * id, says whether it committed: an id that never reached the disk is issued again after a crash.
   */
  outcomeTransactionInDoubt?: string;
}

/** A statement that may commit, sent and not answered yet. */
interface Unanswered {
  /** The transaction it commits; null for a statement outside a transaction. */
  transactionId: string | null;
  /** The transaction holds the key's outcome row: once it commits, the row is there. */
  recordsOutcome?: boolean;
}

/**
 * A request with an Idempotency-Key: its first write records the key's outcome in PostgreSQL,
 * in the write's own transaction, so that a retry after a crash between COMMIT and the key's
 * completion never writes again.
 */
export interface KeyedWrite {
  key: OutcomeKey;
  /** The answer thrown in place of the write when an earlier request with the key wrote first. */
  settledEarlier(earlier: EarlierOutcome): Error;
}

/** The key's outcome row as the request left it. */
export interface KeyedOutcome {
  /** The request's own row is there: it is given the answer, or removed if the key is freed. */
  recorded: boolean;
  /** The row an earlier request with the key left, which stopped this one's write. */
  earlier: EarlierOutcome | null;
}

/**
 * The write ledger's own statement, by name; the outcome row's are IDEMPOTENCY_OUTCOME_SQL. The
 * ledger sends both on the write's own connection rather than through Sql: they must run in its transaction.
 */
export const WRITE_LEDGER_SQL = {
  /** The id of the runner's transaction (`xid8` as text), null when it wrote nothing. */
  transactionId: (): SqlStatement => ({ text: 'SELECT pg_current_xact_id_if_assigned()::text AS id', values: [] }),
} satisfies SqlStatements;

/** Statements outside a transaction that write nothing; anything else there may commit a write. */
const READ_ONLY = /^\s*SELECT\b/i;

/**
 * Whether a failed statement was refused by PostgreSQL itself, and so did not commit. A lost
 * connection, the client's own timeout, and a fatal error (the server shutting down mid-COMMIT)
 * leave the outcome unknown.
 */
function refusedByServer(error: unknown): boolean {
  if (!(error instanceof DatabaseError)) return false;
  const code = error.code ?? '';
  const fatal = error.severity === 'FATAL' || error.severity === 'PANIC';
  return !fatal && !['08', '57P', '58', 'XX'].some((connectionOrServerFailure) => code.startsWith(connectionOrServerFailure));
}

/**
 * The writes of one request, as far as they can be known from this side of the connection:
 * what PostgreSQL confirmed, and what went out without an answer (docs/api.md#idempotency).
 * It records only once started, so that work before (authentication's own writes) is left out.
 */
export class WriteLedger {
  private recording = false;
  private committed = false;
  private readonly transactionsInDoubt: string[] = [];
  private statementsInDoubt = false;
  private outcomeTransactionInDoubt: string | undefined;
  private readonly unanswered = new Map<QueryRunner, Unanswered>();
  private keyed: KeyedWrite | undefined;
  private outcomeRecorded = false;
  private earlier: EarlierOutcome | null = null;

  start(keyed?: KeyedWrite): void {
    this.recording = true;
    this.keyed = keyed;
  }

  get isRecording(): boolean {
    return this.recording;
  }

  /** Stops recording; a statement still unanswered counts as in doubt. */
  finish(): WriteOutcome {
    this.recording = false;
    for (const statement of this.unanswered.values()) this.doubt(statement);
    this.unanswered.clear();
    return {
      committed: this.committed,
      transactionsInDoubt: [...this.transactionsInDoubt],
      statementsInDoubt: this.statementsInDoubt,
      outcomeTransactionInDoubt: this.outcomeTransactionInDoubt,
    };
  }

  get keyedOutcome(): KeyedOutcome {
    return { recorded: this.outcomeRecorded, earlier: this.earlier };
  }

  /** The key whose outcome the next write records, until one has. */
  get outcomeToRecord(): OutcomeKey | undefined {
    return this.recording && !this.outcomeRecorded ? this.keyed?.key : undefined;
  }

  /** The key to mark before this statement: a write outside a transaction, with no outcome recorded yet. */
  outcomeToMarkBefore(runner: QueryRunner, query: string): OutcomeKey | undefined {
    return runner.isTransactionActive || READ_ONLY.test(query) ? undefined : this.outcomeToRecord;
  }

  /** The outcome statement's row: a row an earlier request left stops the write here (throws its answer). */
  checkOutcome(row: RecordedOutcomeRow): void {
    if (row.ours || this.keyed === undefined) return;
    this.earlier = earlierOutcome(row);
    throw this.keyed.settledEarlier(this.earlier);
  }

  /** The mark before a write outside a transaction committed on its own. */
  marked(): void {
    this.outcomeRecorded = true;
  }

  /**
   * The runner's transaction is about to commit. `transactionId` is null when it has none: it
   * wrote nothing, so its COMMIT cannot change anything.
   */
  beforeCommit(runner: QueryRunner, transactionId: string | null, recordsOutcome = false): void {
    if (this.recording && transactionId !== null) this.unanswered.set(runner, { transactionId, recordsOutcome });
  }

  afterCommit(runner: QueryRunner): void {
    const transaction = this.unanswered.get(runner);
    if (!this.recording || transaction === undefined) return;
    this.unanswered.delete(runner);
    this.committed = true;
    if (transaction.recordsOutcome) this.outcomeRecorded = true;
  }

  /** A statement goes out; outside a transaction, anything but a SELECT may commit a write. */
  sending(runner: QueryRunner, query: string): void {
    if (!this.recording || runner.isTransactionActive || READ_ONLY.test(query)) return;
    this.unanswered.set(runner, { transactionId: null });
  }

  /** The runner's statement was answered, or failed. A COMMIT counts once `afterCommit` confirms it. */
  answered(runner: QueryRunner, success: boolean, error: unknown): void {
    const statement = this.unanswered.get(runner);
    if (!this.recording || statement === undefined) return;
    if (success) {
      if (statement.transactionId !== null) return;
      this.committed = true;
    } else if (!refusedByServer(error)) {
      this.doubt(statement);
    }
    this.unanswered.delete(runner);
  }

  private doubt(statement: Unanswered): void {
    if (statement.transactionId === null) {
      this.statementsInDoubt = true;
      return;
    }
    this.transactionsInDoubt.push(statement.transactionId);
    if (statement.recordsOutcome) this.outcomeTransactionInDoubt = statement.transactionId;
  }
}

/** The ledger of the request being handled, where one was given (keyed writes, platform/idempotency). */
export const writeLedgers = new AsyncLocalStorage<WriteLedger>();

/**
 * Feeds the current request's ledger from TypeORM's events. Before a COMMIT it asks for the
 * transaction's id, one round trip for recorded requests only: were the COMMIT's answer lost,
 * that id is all PostgreSQL needs to say whether it committed (`pg_xact_status`). For a keyed
 * write the same round trip records the key's outcome in the transaction; a write outside a
 * transaction is preceded by a mark of its own. `registerWriteLedger` adds it to the API's DataSource.
 */
export class WriteLedgerSubscriber implements EntitySubscriberInterface {
  async beforeTransactionCommit({ queryRunner }: TransactionCommitEvent): Promise<void> {
    const ledger = writeLedgers.getStore();
    if (!ledger?.isRecording) return;
    const key = ledger.outcomeToRecord;
    if (key === undefined) {
      const { text, values } = WRITE_LEDGER_SQL.transactionId();
      const [row] = (await queryRunner.query(text, values)) as Array<{ id: string | null }>;
      ledger.beforeCommit(queryRunner, row.id);
      return;
    }
    const { text, values } = IDEMPOTENCY_OUTCOME_SQL.recordOutcome(key, true);
    // No row: the transaction wrote nothing, so there is nothing to record.
    const [row] = (await queryRunner.query(text, values)) as RecordedOutcomeRow[];
    if (row === undefined) return;
    ledger.checkOutcome(row);
    ledger.beforeCommit(queryRunner, row.xact_id, true);
  }

  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    writeLedgers.getStore()?.afterCommit(queryRunner);
  }

  beforeQuery({ queryRunner, query }: BeforeQueryEvent<unknown>): Promise<void> | void {
    const ledger = writeLedgers.getStore();
    const key = ledger?.outcomeToMarkBefore(queryRunner, query);
    if (ledger === undefined || key === undefined) return ledger?.sending(queryRunner, query);
    return this.markBeforeWrite(ledger, queryRunner, query, key);
  }

  afterQuery({ queryRunner, success, error }: AfterQueryEvent<unknown>): void {
    writeLedgers.getStore()?.answered(queryRunner, success, error);
  }

  /** On the write's own connection, past TypeORM's events: the mark is no write of the request's. */
  private async markBeforeWrite(ledger: WriteLedger, runner: QueryRunner, query: string, key: OutcomeKey): Promise<void> {
    const { text, values } = IDEMPOTENCY_OUTCOME_SQL.recordOutcome(key, false);
    const connection = (await runner.connect()) as PoolClient;
    const { rows } = await connection.query<RecordedOutcomeRow>(text, values);
    ledger.checkOutcome(rows[0]);
    ledger.marked();
    ledger.sending(runner, query);
  }
}

/** Feeds the ledgers of the requests this DataSource serves; once per DataSource. */
export function registerWriteLedger(dataSource: DataSource): void {
  if (!dataSource.subscribers.some((subscriber) => subscriber instanceof WriteLedgerSubscriber)) dataSource.subscribers.push(new WriteLedgerSubscriber());
}
