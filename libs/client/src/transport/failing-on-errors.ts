import { errorOf } from '../errors';
import type { Transport } from './transport';

/**
 * Turns every 4xx and 5xx into a thrown, typed error (RmsApiError and its kin), so a call
 * resolves only with a success (or a 304 the caller asked for with `If-None-Match`).
 */
export function failingOnErrors(send: Transport): Transport {
  return async (request) => {
    const response = await send(request);
    if (response.status >= 400) throw await errorOf(response);
    return response;
  };
}
