import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseError } from 'pg';
import { EventSubscriber } from 'typeorm';
import type { AfterQueryEvent, BeforeQueryEvent, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent } from 'typeorm';

/** What one request's writes came to, by the answers PostgreSQL gave them. */
export interface WriteOutcome {
  /** A COMMIT, or a write outside a transaction, was answered: something took effect. */
  committed: boolean;
  /** Transactions whose COMMIT went out and was never answered, by id (`xid8`): PostgreSQL knows how each ended. */
  transactionsInDoubt: string[];
  /** A write outside a transaction went out and was never answered; it has no id to ask about. */
  statementsInDoubt: boolean;
}

/** A statement that may commit, sent and not answered yet. */
interface Unanswered {
  /** The transaction it commits; null for a statement outside a transaction. */
  transactionId: string | null;
}

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
  private readonly unanswered = new Map<QueryRunner, Unanswered>();

  start(): void {
    this.recording = true;
  }

  get isRecording(): boolean {
    return this.recording;
  }

  /** Stops recording; a statement still unanswered counts as in doubt. */
  finish(): WriteOutcome {
    this.recording = false;
    for (const statement of this.unanswered.values()) this.doubt(statement);
    this.unanswered.clear();
    return { committed: this.committed, transactionsInDoubt: [...this.transactionsInDoubt], statementsInDoubt: this.statementsInDoubt };
  }

  /**
   * The runner's transaction is about to commit. `transactionId` is null when it has none: it
   * wrote nothing, so its COMMIT cannot change anything.
   */
  beforeCommit(runner: QueryRunner, transactionId: string | null): void {
    if (this.recording && transactionId !== null) this.unanswered.set(runner, { transactionId });
  }

  afterCommit(runner: QueryRunner): void {
    if (!this.recording || !this.unanswered.delete(runner)) return;
    this.committed = true;
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
    if (statement.transactionId === null) this.statementsInDoubt = true;
    else this.transactionsInDoubt.push(statement.transactionId);
  }
}

/** The ledger of the request being handled, where one was given (keyed writes, platform/idempotency). */
export const writeLedgers = new AsyncLocalStorage<WriteLedger>();

/**
 * Feeds the current request's ledger from TypeORM's events. Before a COMMIT it asks for the
 * transaction's id, one round trip for recorded requests only: were the COMMIT's answer lost,
 * that id is all PostgreSQL needs to say whether it committed (`pg_xact_status`).
 */
@EventSubscriber()
export class WriteLedgerSubscriber implements EntitySubscriberInterface {
  async beforeTransactionCommit({ queryRunner }: TransactionCommitEvent): Promise<void> {
    const ledger = writeLedgers.getStore();
    if (!ledger?.isRecording) return;
    const [row] = (await queryRunner.query('SELECT pg_current_xact_id_if_assigned()::text AS id')) as Array<{ id: string | null }>;
    ledger.beforeCommit(queryRunner, row.id);
  }

  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    writeLedgers.getStore()?.afterCommit(queryRunner);
  }

  beforeQuery({ queryRunner, query }: BeforeQueryEvent<unknown>): void {
    writeLedgers.getStore()?.sending(queryRunner, query);
  }

  afterQuery({ queryRunner, success, error }: AfterQueryEvent<unknown>): void {
    writeLedgers.getStore()?.answered(queryRunner, success, error);
  }
}
