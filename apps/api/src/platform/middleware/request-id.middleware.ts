import type { NextFunction, Request, Response } from 'express';
import { newId } from '@app/common';
import { RequestState, StatefulRequest } from '../request/request-state';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Echoes a well-formed client `X-Request-ID`, or makes a `req_` id, and attaches the request's
 * state (RequestState) that the rest of the pipeline shares; runs before anything else.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const sent = req.headers['x-request-id'];
  const id = typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : newId('req');
  const stateful = req as StatefulRequest;
  stateful.id = id;
  stateful.state = new RequestState(id);
  res.setHeader('X-Request-ID', id);
  next();
}
