import type { IncomingMessage, ServerResponse } from 'node:http';

type Next = (error?: unknown) => void;
type Middleware<Req extends IncomingMessage, Res extends ServerResponse> = (req: Req, res: Res, next: Next) => void;

/**
 * Several Express middleware run as one layer, in the order given; an error skips the rest and
 * goes to Express, as between layers. Express's router allocates a match and a closure for every
 * layer a request passes, so the middleware every request runs are mounted as one.
 */
export function inOrder<Req extends IncomingMessage, Res extends ServerResponse>(
  ...middleware: Array<Middleware<Req, Res>>
): Middleware<Req, Res> {
  return (req, res, done) => {
    let index = 0;
    const next: Next = (error) => {
      if (error !== undefined && error !== null) return done(error);
      const current = middleware[index++];
      if (current === undefined) return done();
      try {
        current(req, res, next);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
