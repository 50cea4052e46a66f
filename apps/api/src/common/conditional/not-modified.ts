/**
 * Thrown by a handler whose client already holds the current representation (If-None-Match
 * matched). The exception filter answers 304 with the validator and no body; a handler cannot
 * set 304 itself, since Nest applies the route's own status after it returns.
 */
export class NotModified extends Error {
  constructor(readonly etag: string) {
    super('Not Modified');
    this.name = 'NotModified';
  }
}
