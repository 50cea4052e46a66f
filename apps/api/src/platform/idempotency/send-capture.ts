import type { Response } from 'express';
import { requestStateOf, StatefulRequest } from '../request/request-state';

/** Express's own send of one response, as `captureSends` hands it to the capture. */
export type Send = (body?: unknown) => Response;

/**
 * Routes every send of `res` through `capture`, which is given the body and Express's own send.
 * Express's `res.json`, and so Nest's replies and the exception filter's answers, send through
 * `res.send` (docs/decisions.md, "Framework internals we rely on").
 */
export function captureSends(res: Response, capture: (body: unknown, send: Send) => Response): void {
  const send: Send = res.send.bind(res);
  requestStateOf(res.req).capturingSends = true;
  res.send = ((body?: unknown) => capture(body, send)) as Response['send'];
}

/** Whether `captureSends` watches this response: an answer to it must go through `res.send`. */
export function isCapturingSends(res: Response): boolean {
  return (res.req as StatefulRequest).state?.capturingSends === true;
}
