import type { NextFunction, Request, Response } from 'express';
import { requestIdMiddleware } from '../middleware/request-id.middleware';
import { requestStateOf } from '../request/request-state';
import { captureSends, isCapturingSends } from './send-capture';

describe('captureSends', () => {
  it("records a capture of the response's sends in the state of its request", () => {
    const req = { headers: {} } as unknown as Request;
    const res = { req, setHeader: jest.fn(), send: jest.fn() } as unknown as Response;
    requestIdMiddleware(req, res, jest.fn() as NextFunction);
    expect(isCapturingSends(res)).toBe(false);
    captureSends(res, (body, send) => send(body));
    expect(requestStateOf(req).capturingSends).toBe(true);
    expect(isCapturingSends(res)).toBe(true);
  });
});
