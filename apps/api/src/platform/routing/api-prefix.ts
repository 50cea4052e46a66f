import { AppError } from '@app/common';
import type { RouteIndex } from './route-index';

/** The path prefix of the API's endpoints (docs/api.md#urls-and-versions: `{base_url}` is `{host_url}/v2`). */
export const API_PREFIX = 'v2';

const PREFIXED = new RegExp(`^/${API_PREFIX}(/|$)`, 'i');

/**
 * The 404 of a request that left out `/v2` from a path that exists under it for the same method,
 * naming that path: the specification writes paths relative to `{base_url}`, and a client read
 * from it easily sends `POST /auth/register`. Undefined for any other unknown route.
 */
export function missingPrefixError(routes: RouteIndex, method: string, path: string): AppError | undefined {
  if (PREFIXED.test(path)) return undefined;
  const prefixed = `/${API_PREFIX}${path}`;
  if (!routes.allowedMethods(prefixed).includes(method)) return undefined;
  return new AppError('not_found', `No route ${method} ${path}. Did you mean ${prefixed}?`);
}
