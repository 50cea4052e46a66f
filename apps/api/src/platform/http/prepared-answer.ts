import type { Response } from 'express';

/**
 * A complete answer decided in place of the handler's result (304 Not Modified, an
 * idempotent replay). It is thrown so that Nest runs nothing further; the exception filter
 * writes it as it is, without the error envelope.
 */
export abstract class PreparedAnswer extends Error {
  abstract write(res: Response): void;
}
