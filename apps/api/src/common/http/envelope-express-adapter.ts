import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { Paginated } from '@app/common';

type Envelope = { data: unknown; meta?: Record<string, unknown> } | undefined;

/** A record as `{ data }`, a Paginated as `{ data, meta }`, nothing as no body. */
function toEnvelope(value: unknown): Envelope {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Paginated) return { data: value.data, meta: value.meta };
  return { data: value };
}

/**
 * Express as Nest drives it, with every handler's result sent in the envelope. The envelope
 * is applied where Nest sends a result rather than in an interceptor: Nest builds an rxjs
 * chain and binds an AsyncResource per interceptor on every request. Errors never pass here;
 * the exception filter writes them.
 */
export class EnvelopeExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    return super.reply(response, toEnvelope(body), statusCode);
  }
}
