import type { ArgumentsHost } from '@nestjs/common';
import type { Request, Response } from 'express';

/*
 * The request and the response of an HTTP call, read from its arguments by index, as Nest's own
 * `switchToHttp().getRequest()` reads them. `switchToHttp()` assigns three new closures to the
 * context on every call, and the guards and parameter decorators of each request call it about
 * ten times.
 */

export function httpRequestOf<T = Request>(host: ArgumentsHost): T {
  return host.getArgByIndex<T>(0);
}

export function httpResponseOf<T = Response>(host: ArgumentsHost): T {
  return host.getArgByIndex<T>(1);
}
