/** What openapi-fetch resolves with: `data` on a success, `error` otherwise (never, with this SDK). */
interface CallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The success branch's `data`: undefined for answers without a body (204). */
type SuccessData<R extends CallResult> = [Extract<R, { error?: never }>['data']] extends [never]
  ? undefined
  : Extract<R, { error?: never }>['data'];

/**
 * The body of a call's 2xx answer, typed. The SDK's client throws for every 4xx and 5xx, so a
 * call that resolves is a success (or a 304 the caller asked for, which has no body); this only
 * removes openapi-fetch's error branch from the type.
 */
export async function unwrap<R extends CallResult>(call: Promise<R>): Promise<SuccessData<R>> {
  const { data } = await call;
  return data as SuccessData<R>;
}
