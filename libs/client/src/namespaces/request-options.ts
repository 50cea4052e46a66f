/** What every namespace method takes last. */
export interface RequestOptions {
  /** Extra headers, sent with the SDK's own. */
  headers?: Record<string, string>;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
}

/** A POST or PATCH: the SDK gives it a random `Idempotency-Key` unless one is set here. */
export interface WriteOptions extends RequestOptions {
  idempotencyKey?: string;
}

/** A change of one resource, refused with 412 `precondition_failed` unless its ETag is `ifMatch`. */
export interface ConditionalWriteOptions extends WriteOptions {
  ifMatch?: string;
}

/** The fetch options of a call: its headers and signal. */
export function requestInit(options: ConditionalWriteOptions = {}): { headers: Record<string, string>; signal?: AbortSignal } {
  const headers = { ...options.headers };
  if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
  if (options.ifMatch !== undefined) headers['If-Match'] = options.ifMatch;
  return options.signal ? { headers, signal: options.signal } : { headers };
}
