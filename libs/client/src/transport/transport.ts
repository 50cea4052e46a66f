/**
 * One way of sending a request: `fetch` itself, or a layer around another transport (retries,
 * credentials, idempotency keys). The client's openapi-fetch instance sends through one.
 */
export type Transport = (request: Request) => Promise<Response>;

/** Lets go of an answer that will not be read, so that its connection can be reused. */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel();
}
