/**
 * The `data` of a JSON answer of a listening API, fetched as a client does (with a bearer token
 * when one is given); throws with the answer when its status is not the one expected.
 */
export async function callApi<T>(baseUrl: string, token: string | undefined, method: string, path: string, expected: number, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}
