import { NotFoundException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RouteIndex } from './route-index';

/**
 * Refuses a method that a literal path lacks before express can route the request to a
 * templated path it also matches (`PUT /v2/resources/bulk` would reach `PUT /v2/resources/:id`
 * and fail its validation with 400). It is refused as no route at all, so the exception filter
 * answers it as every unknown method is: 405 with `Allow`, or 204 with `Allow` to OPTIONS.
 * A plain function for the early Express layer (`configureApiApp`), not a Nest middleware route.
 */
export function shadowedMethodMiddleware(routes: RouteIndex): (req: Request, res: Response, next: NextFunction) => void {
  return (req, _res, next) => {
    if (routes.isShadowedMethod(req.method, req.path)) throw new NotFoundException();
    next();
  };
}
