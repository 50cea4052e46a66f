import type { NextFunction, Request, Response } from 'express';
import { requestIdMiddleware } from '../middleware/request-id.middleware';
import { RequestState, requestStateOf, StatefulRequest } from './request-state';

function passThroughMiddleware(headers: Record<string, string> = {}): { req: StatefulRequest; res: Response } {
  const req = { headers } as unknown as Request & StatefulRequest;
  const res = { req, setHeader: jest.fn(), send: jest.fn() } as unknown as Response;
  requestIdMiddleware(req, res, jest.fn() as NextFunction);
  return { req, res };
}

describe('RequestState', () => {
  it('is attached once by the request id middleware, with the request id, and found there by every step', () => {
    const { req } = passThroughMiddleware({ 'x-request-id': 'client-id-1' });
    expect(req.state).toBeInstanceOf(RequestState);
    expect(req.state?.requestId).toBe('client-id-1');
    expect(requestStateOf(req)).toBe(req.state);
    expect(requestStateOf(req)).toBe(requestStateOf(req));
  });

  it('starts knowing nothing: no revocation answer, not counted, no page account, no capture', () => {
    const { req } = passThroughMiddleware();
    expect({ ...requestStateOf(req) }).toEqual({
      requestId: expect.stringMatching(/^req_/),
      revoked: undefined,
      counted: false,
      pageAccount: undefined,
      capturingSends: false,
    });
  });

  it('gives every request a state of its own, with the same fields in the same order', () => {
    const [first, second] = [passThroughMiddleware().req, passThroughMiddleware().req];
    requestStateOf(first).counted = true;
    expect(requestStateOf(second).counted).toBe(false);
    expect(Object.keys(requestStateOf(first))).toEqual(Object.keys(requestStateOf(second)));
  });

  it('is attached on first use to a request the middleware did not see', () => {
    const req = { id: 'req_unit' } as unknown as Request;
    const state = requestStateOf(req);
    expect(state.requestId).toBe('req_unit');
    expect(requestStateOf(req)).toBe(state);
  });
});
