/** What a SQL statement or Redis command is, as its span names it. */
export interface DatabaseCall {
  system: 'postgresql' | 'redis';
  /** `db.operation.name`: the statement's first keyword (`SELECT`), or the command (`EXISTS`). */
  operation: string;
  /** `db.query.text`: the statement with its placeholders, never its values; a command's name, never its keys. */
  queryText: string;
  /** `db.namespace`: the database's name. */
  namespace?: string;
  /** `server.address` and `server.port` of the server the call goes to. */
  server?: { address: string; port?: number };
}
