import type { NextFunction, Request, Response } from 'express';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_METHODS } from './idempotency.guard';
import { WriteLedger, writeLedgers } from './write-ledger';

/**
 * Gives each POST or PATCH that carries an Idempotency-Key a write ledger for the rest of its
 * handling, which the guard starts once it holds the key. It must be entered here, around the
 * route: a guard's own async context does not reach the handler. An async context rather than the
 * request's state (RequestState): the database's subscriber that feeds the ledger is handed a
 * query runner, never the request.
 */
export function writeLedgerMiddleware(req: Request, _res: Response, next: NextFunction): void {
  if (req.headers[IDEMPOTENCY_KEY_HEADER] === undefined || !IDEMPOTENT_METHODS.has(req.method)) return next();
  writeLedgers.run(new WriteLedger(), next);
}
