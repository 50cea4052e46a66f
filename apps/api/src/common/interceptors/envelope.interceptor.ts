import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { map, Observable } from 'rxjs';
import { Paginated } from '@app/common';

export type Envelope = { data: unknown; meta?: Record<string, unknown> } | undefined;

/** Wraps handler results: a record as `{ data }`, a Paginated as `{ data, meta }`, nothing as no body. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<Envelope> {
    return next.handle().pipe(map(toEnvelope));
  }
}

export function toEnvelope(value: unknown): Envelope {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Paginated) return { data: value.data, meta: value.meta };
  return { data: value };
}
