import type { Authenticator } from '../credentials/authenticator';
import { discard, Transport } from './transport';

/**
 * Sends each request with the credential's current header; after a 401, lets the credential
 * renew itself (refresh, fetch a new token) and sends the request once more.
 */
export function authenticating(send: Transport, authenticator: Authenticator): Transport {
  const sendWith = async (request: Request): Promise<{ response: Response; sentWith: string }> => {
    const header = await authenticator.header();
    const attempt = request.clone();
    attempt.headers.set(header.name, header.value);
    return { response: await send(attempt), sentWith: header.value };
  };
  return async (request) => {
    const first = await sendWith(request);
    if (first.response.status !== 401 || !(await authenticator.renew(first.sentWith))) return first.response;
    await discard(first.response);
    return (await sendWith(request)).response;
  };
}
