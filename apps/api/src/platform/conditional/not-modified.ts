import type { Response } from 'express';
import { PreparedAnswer } from '../http/prepared-answer';

/**
 * Thrown by a handler whose client already holds the current representation (If-None-Match
 * matched): 304 with the validator and no body. A handler cannot set 304 itself, since Nest
 * applies the route's own status after it returns.
 */
export class NotModified extends PreparedAnswer {
  constructor(readonly etag: string) {
    super('Not Modified');
    this.name = 'NotModified';
  }

  write(res: Response): void {
    res.status(304).setHeader('ETag', this.etag).end();
  }
}
