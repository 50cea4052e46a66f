import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { from, Observable, of, switchMap } from 'rxjs';
import { AppError, InvalidRequestError } from '@app/common';
import type { AuthenticatedRequest } from '../decorators/auth.decorator';
import { IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency.store';
import { ONE_TIME_SECRET_FIELDS, withoutOneTimeSecrets } from './one-time-secret.decorator';
import { requestFingerprint } from './request-fingerprint';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const SECRET_OMITTED_HEADER = 'Idempotent-Secret-Omitted';
const MAX_KEY_LENGTH = 255;
const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH']);
/** Headers of an answer that are replayed with its status and body. */
const REPLAYED_HEADERS = ['content-type', 'etag', 'location', SECRET_OMITTED_HEADER.toLowerCase()];

/**
 * Whether an answer is kept for replay. Successes and refusals made while handling the
 * request are (like Stripe); a 400 means the request never ran (validation), a 429 that it was
 * not admitted, and a 5xx may be transient: those release the key so the client can retry.
 */
export function isReplayable(status: number): boolean {
  return status < 500 && status !== 400 && status !== 429;
}

/**
 * `Idempotency-Key` on every authenticated POST and PATCH (decisions 12), scoped to the
 * account. The answer is captured where Express sends it, after the envelope and the exception
 * filter, and stored before it leaves: a client that has the answer can always replay it.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<AuthenticatedRequest>();
    const key = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (key === undefined || !req.auth || !IDEMPOTENT_METHODS.has(req.method)) return next.handle();
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new InvalidRequestError(`The Idempotency-Key header must be 1-${MAX_KEY_LENGTH} characters.`);
    }
    const res = http.getResponse<Response>();
    const fingerprint = requestFingerprint(req.method, req.originalUrl, req.body);
    return from(this.store.claim(req.auth.userId, key, fingerprint)).pipe(
      switchMap((outcome) => {
        switch (outcome.kind) {
          case 'claimed':
            this.captureAnswer(res, outcome.claim, fingerprint, this.secretFields(context));
            return next.handle();
          case 'completed':
            replay(res, outcome.response);
            // The answer is sent; Nest's own reply to an ended response writes nothing.
            return of(undefined);
          case 'in_progress':
            throw new AppError(
              'idempotency_key_in_progress',
              'A request with this Idempotency-Key is still being processed. Retry once it has finished.',
            );
          case 'reused':
            throw new AppError(
              'idempotency_key_reused',
              'This Idempotency-Key was already used for a different request (method, path or body). Use a new key.',
            );
        }
      }),
    );
  }

  private secretFields(context: ExecutionContext): string[] {
    return this.reflector.get<string[] | undefined>(ONE_TIME_SECRET_FIELDS, context.getHandler()) ?? [];
  }

  /** Holds the first send of the answer until it is stored (or the key released). */
  private captureAnswer(res: Response, claim: IdempotencyClaim, fingerprint: string, secretFields: string[]): void {
    const send = res.send.bind(res);
    let captured = false;
    res.send = ((body?: unknown): Response => {
      if (captured) return send(body);
      captured = true;
      void this.settle(res, claim, fingerprint, body, secretFields).finally(() => {
        try {
          send(body);
        } catch (error) {
          this.logger.error({ err: error }, 'Could not send the answer of an idempotent request');
        }
      });
      return res;
    }) as Response['send'];
  }

  private async settle(
    res: Response,
    claim: IdempotencyClaim,
    fingerprint: string,
    body: unknown,
    secretFields: string[],
  ): Promise<void> {
    try {
      // A 503 met a stalled dependency: a statement may still be ending, so the claim is left to
      // expire (CLAIM_TTL_SECONDS, far past the statement timeout) rather than released for a
      // retry that could run the write a second time.
      if (res.statusCode === 503) return;
      if (!isReplayable(res.statusCode)) {
        await this.store.release(claim);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = res.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : null;
      // A one-time secret is never written to Redis: the replay answers the record without it.
      const stored = text === null ? { body: null, omitted: [] } : withoutOneTimeSecrets(text, secretFields);
      if (stored.omitted.length > 0) headers[SECRET_OMITTED_HEADER.toLowerCase()] = stored.omitted.join(', ');
      await this.store.complete(claim, fingerprint, { status: res.statusCode, headers, body: stored.body });
    } catch (error) {
      this.logger.error({ err: error }, 'Could not store the answer of an idempotent request');
      await this.store.release(claim).catch(() => undefined);
    }
  }
}

function replay(res: Response, stored: StoredResponse): void {
  res.setHeader(REPLAYED_HEADER, 'true');
  for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
  res.status(stored.status);
  if (stored.body === null) res.send();
  else res.send(stored.body);
}
