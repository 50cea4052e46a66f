import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { AppError, InvalidRequestError } from '@app/common';
import type { AuthenticatedRequest } from '../decorators/auth.decorator';
import { PreparedAnswer } from '../http/prepared-answer';
import { captureSends } from '../http/send-capture';
import { IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency.store';
import { ONE_TIME_SECRET_FIELDS, withoutOneTimeSecrets } from './one-time-secret.decorator';
import { requestFingerprint } from './request-fingerprint';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const SECRET_OMITTED_HEADER = 'Idempotent-Secret-Omitted';
const MAX_KEY_LENGTH = 255;
export const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH']);
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
 * `Idempotency-Key` on every authenticated POST and PATCH (docs/api.md#idempotency), scoped to the
 * account. The last guard claims the key, so a request refused by authentication, scopes or the
 * rate limit never holds one; validation and the handler run inside the claim. The answer is
 * captured where Express sends it, after the envelope and the exception filter, and stored
 * before it leaves: a client that has the answer can always replay it. A guard rather than an
 * interceptor: Nest wraps every route in each global interceptor, and this rule concerns writes.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (key === undefined || !req.auth || !IDEMPOTENT_METHODS.has(req.method)) return true;
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new InvalidRequestError(`The Idempotency-Key header must be 1-${MAX_KEY_LENGTH} characters.`);
    }
    return this.claim(context, req, req.auth.userId, key);
  }

  private async claim(context: ExecutionContext, req: AuthenticatedRequest, userId: string, key: string): Promise<boolean> {
    const fingerprint = requestFingerprint(req.method, req.originalUrl, req.body);
    const outcome = await this.store.claim(userId, key, fingerprint);
    switch (outcome.kind) {
      case 'claimed':
        this.captureAnswer(context.switchToHttp().getResponse<Response>(), outcome.claim, fingerprint, this.secretFields(context));
        return true;
      case 'completed':
        throw new IdempotentReplay(outcome.response);
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
  }

  private secretFields(context: ExecutionContext): string[] {
    return this.reflector.get<string[] | undefined>(ONE_TIME_SECRET_FIELDS, context.getHandler()) ?? [];
  }

  /** Holds the first send of the answer until it is stored (or the key released). */
  private captureAnswer(res: Response, claim: IdempotencyClaim, fingerprint: string, secretFields: string[]): void {
    let captured = false;
    captureSends(res, (body, send) => {
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
    });
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

/** The stored answer of a completed request with the same key, sent again as it was. */
class IdempotentReplay extends PreparedAnswer {
  constructor(private readonly stored: StoredResponse) {
    super('Idempotent replay');
    this.name = 'IdempotentReplay';
  }

  write(res: Response): void {
    res.setHeader(REPLAYED_HEADER, 'true');
    for (const [name, value] of Object.entries(this.stored.headers)) res.setHeader(name, value);
    res.status(this.stored.status);
    if (this.stored.body === null) res.send();
    else res.send(this.stored.body);
  }
}
