import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';

/**
 * What PostgreSQL refuses in a `jsonb` (or `text`) value of a UTF-8 database, besides NUL (`\u0000
 * cannot be converted to text`): UTF-16 surrogates that are not part of a pair, which
 * JSON.stringify writes as `\ud800` and jsonb refuses.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** U+FFFD, the replacement character: it shows where something unstorable was. */
const REPLACEMENT = '\uFFFD';

/** A string PostgreSQL stores as it is, with each character it would refuse replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', REPLACEMENT).replace(LONE_SURROGATE, REPLACEMENT);
}

/**
 * A JSON value (strings, numbers, booleans, null, arrays, plain objects) with every string in it,
 * object keys included, made storable: text a remote party chose (a webhook receiver's answer)
 * can then never fail the statement that writes it.
 */
export function storableJson<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((entry: unknown) => storableJson(entry)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [storableText(key), storableJson(entry)])) as T;
  }
  return value;
}

/**
 * SQLSTATE classes of an error that one row's content causes: 22 (data exception: a value the
 * column's type refuses), 23 (a constraint the row breaks) and 54 (a value over a program limit,
 * such as the largest jsonb). Errors of the connection, the server or a timeout are not among them.
 */
const ROW_DATA_CLASSES = new Set(['22', '23', '54']);

/** True when PostgreSQL refused a statement for the data it carried, rather than failing to run it. */
export function isRefusedData(error: unknown): boolean {
  // pg's own error from the pool; TypeORM's wraps it when the statement ran through a QueryRunner.
  const driverError: unknown = error instanceof QueryFailedError ? error.driverError : error instanceof DatabaseError ? error : null;
  const code: unknown = (driverError as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ROW_DATA_CLASSES.has(code.slice(0, 2));
}
