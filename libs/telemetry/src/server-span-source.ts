import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the app knows of a request that the server span records, read only when it is sampled. */
export interface ServerSpanSource<Req extends IncomingMessage, Res extends ServerResponse> {
  /** The route pattern that answered (`/v2/resources/:id`), once the answer is sent; undefined when none did. */
  routeOf(req: Req, res: Res): string | undefined;
  /** The client's address, past the proxies the app trusts. */
  clientAddressOf(req: Req): string | undefined;
}

export type ServerSpanMiddleware<Req extends IncomingMessage, Res extends ServerResponse> = (req: Req, res: Res, next: () => void) => void;
