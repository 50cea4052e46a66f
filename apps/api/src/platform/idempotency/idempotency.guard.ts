import { CanActivate, ExecutionContext, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { AppError, InvalidRequestError } from '@app/common';
import type { AuthenticatedRequest } from '../decorators/auth.decorator';
import { renderError } from '../filters/app-exception.filter';
import { httpRequestOf, httpResponseOf } from '../request/http-arguments';
import { PerRouteMemo } from '../routing/per-route-memo';
import { RouteTable } from '../routing/route-table';
import { AnswerWritten, setHeaders, writeAnswer, WrittenAnswer } from '../answers/answer-writer';
import { CrashPoints } from './crash-points';
import { EarlierOutcome, IdempotencyOutcomeRepository } from './idempotency-outcome.repository';
import { ClaimOutcome, IdempotencyClaim, IdempotencyStore, retryAfterSeconds, StoredResponse } from './idempotency.store';
import { ONE_TIME_SECRET_FIELDS, withoutOneTimeSecrets } from './one-time-secret.decorator';
import { requestFingerprint } from './request-fingerprint';
import { captureSends } from './send-capture';
import { KeyedOutcome, WriteLedger, writeLedgers, WriteOutcome } from './write-ledger';

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
 * not admitted, and a 5xx may be transient: those free the key for a retry, unless a write
 * took effect or may have (`tookNoEffect`).
 */
export function isReplayable(status: number): boolean {
  return status < 500 && status !== 400 && status !== 429;
}

/** Nothing the request wrote committed, nor can still: a retry may run it again. */
export function tookNoEffect(writes: WriteOutcome): boolean {
  return !writes.committed && !writes.statementsInDoubt && writes.transactionsInDoubt.length === 0;
}

/** The stored answer of a completed request with the same key, as it is sent again. */
function replayOf(stored: StoredResponse): WrittenAnswer {
  return { status: stored.status, headers: { [REPLAYED_HEADER]: 'true', ...stored.headers }, body: stored.body };
}

/** The answer to a request whose key is not free: a replay, or the error saying why it does not run. */
function answerToTakenKey(outcome: Exclude<ClaimOutcome, { kind: 'claimed' }>): WrittenAnswer | AppError {
  switch (outcome.kind) {
    case 'completed':
      return replayOf(outcome.response);
    case 'in_progress':
      return new AppError(
        'idempotency_key_in_progress',
        `A request with this Idempotency-Key is still being processed. Retry in ${outcome.retryAfterSeconds} seconds.`,
        undefined,
        { 'Retry-After': String(outcome.retryAfterSeconds) },
      );
    case 'answer_lost':
      return new AppError(
        'idempotency_key_answer_lost',
        outcome.tookEffect
          ? 'The first request with this Idempotency-Key took effect, but its answer was lost. Read the result back; it is not run again.'
          : 'The first request with this Idempotency-Key lost its database connection while committing, so it may have taken effect. ' +
              'Check whether it did; it is not run again. Send it with a new key if it did not.',
      );
    case 'reused':
      return new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used for a different request (method, path or body). Use a new key.',
      );
  }
}

/** What the outcome row of an earlier request with the key tells a retry that Redis let through. */
function claimOutcomeOf(earlier: EarlierOutcome): Exclude<ClaimOutcome, { kind: 'claimed' }> {
  if (!earlier.sameRequest) return { kind: 'reused' };
  if (earlier.answer !== null) return { kind: 'completed', response: earlier.answer };
  return { kind: 'answer_lost', tookEffect: earlier.tookEffect };
}

/**
 * `Idempotency-Key` on every authenticated POST and PATCH (docs/api.md#idempotency), scoped to the
 * account. The last guard claims the key, so a request refused by authentication, scopes or the
 * rate limit never holds one; validation and the handler run inside the claim. The answer is
 * captured where Express sends it, after the envelope and the exception filter, and stored
 * before it leaves: a client that has the answer can always replay it. A guard rather than an
 * interceptor: Nest wraps every route in each global interceptor, and this rule concerns writes.
 *
 * Redis holds the claim and the answers replays read; PostgreSQL holds what a write came to, in
 * the write's own transaction (the write ledger records it), so that a retry Redis lets through
 * after a crash, or after Redis lost the completion, stops at its first write and answers what
 * the earlier request left.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate, OnModuleInit {
  private readonly logger = new Logger('Idempotency');
  /** Each route handler's one-time secret fields (`@OneTimeSecret`), read for every route at start-up. */
  private readonly secretFieldsOfRoutes: PerRouteMemo<string[]>;

  constructor(
    private readonly store: IdempotencyStore,
    private readonly outcomes: IdempotencyOutcomeRepository,
    private readonly crashes: CrashPoints,
    reflector: Reflector,
    private readonly routeTable: RouteTable,
  ) {
    this.secretFieldsOfRoutes = new PerRouteMemo(([handler]) => reflector.get<string[] | undefined>(ONE_TIME_SECRET_FIELDS, handler) ?? []);
  }

  onModuleInit(): void {
    this.secretFieldsOfRoutes.prepare(this.routeTable.routes());
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = httpRequestOf<AuthenticatedRequest>(context);
    const key = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (key === undefined || !req.auth || !IDEMPOTENT_METHODS.has(req.method)) return true;
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new InvalidRequestError(`The Idempotency-Key header must be 1-${MAX_KEY_LENGTH} characters.`);
    }
    return this.claim(context, req, req.auth.userId, key);
  }

  private async claim(context: ExecutionContext, req: AuthenticatedRequest, userId: string, key: string): Promise<boolean> {
    const ledger = writeLedgers.getStore();
    if (!ledger) throw new Error('A keyed write reached the Idempotency-Key guard without its write ledger (writeLedgerMiddleware)');
    const fingerprint = requestFingerprint(req.method, req.originalUrl, req.body);
    const outcome = await this.store.claim(userId, key, fingerprint);
    const res = httpResponseOf(context);
    if (outcome.kind !== 'claimed') throw answerInstead(res, answerToTakenKey(outcome));
    ledger.start({ key: outcome.claim.outcome, settledEarlier: (earlier) => answerInstead(res, answerToTakenKey(claimOutcomeOf(earlier))) });
    this.captureAnswer(res, outcome.claim, ledger, fingerprint, this.secretFieldsOfRoutes.get(context));
    return true;
  }

  /** Holds the first send of the answer until it is stored (or the key released), renewing the claim until then. */
  private captureAnswer(res: Response, claim: IdempotencyClaim, ledger: WriteLedger, fingerprint: string, secretFields: string[]): void {
    let captured = false;
    const stopHolding = this.store.hold(claim);
    captureSends(res, (body, send) => {
      if (captured) return send(body);
      captured = true;
      stopHolding();
      const writes = ledger.finish();
      void this.settle(res, claim, writes, ledger.keyedOutcome, fingerprint, body, secretFields).then((answer) => {
        try {
          send(answer);
        } catch (error) {
          this.logger.error({ err: error }, 'Could not send the answer of an idempotent request');
        }
      });
      return res;
    });
  }

  /**
   * Stores a replayable answer, in Redis for replays and in the request's outcome row in
   * PostgreSQL, which outlasts a crash before Redis has it. An error frees the key at once when
   * nothing the request wrote committed or can still commit (a transaction ends with its ROLLBACK
   * or its connection; only a COMMIT that went out unanswered may still have committed);
   * otherwise the key keeps what the writes came to, for a retry to learn instead of writing twice.
   * Answers the body to send: the captured one, or what an earlier request with the key came to.
   */
  private async settle(
    res: Response,
    claim: IdempotencyClaim,
    writes: WriteOutcome,
    keyed: KeyedOutcome,
    fingerprint: string,
    body: unknown,
    secretFields: string[],
  ): Promise<unknown> {
    try {
      if (writes.committed) this.crashes.reach('after_commit');
      // A refusal before any write may come from the state an earlier request with the key left
      // (the version its If-Match named has moved on): what that request came to is the answer.
      const earlier =
        keyed.earlier ??
        (!keyed.recorded && res.statusCode >= 400 && isReplayable(res.statusCode) ? await this.outcomes.earlierOf(claim.outcome) : null);
      if (earlier) {
        const answer = keyed.earlier ? body : answerInPlace(res, earlier);
        await this.settleAsEarlier(claim, fingerprint, earlier);
        return answer;
      }
      if (!isReplayable(res.statusCode)) {
        if (tookNoEffect(writes)) {
          // Only a mark before a write outside a transaction outlives a write that took no effect.
          if (keyed.recorded) await this.outcomes.discard(claim.outcome);
          await this.store.release(claim);
        } else {
          await this.store.leaveUnsettled(claim, fingerprint, writes);
        }
        return body;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = res.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : null;
      // A one-time secret is never stored: the replay answers the record without it.
      const stored = text === null ? { body: null, omitted: [] } : withoutOneTimeSecrets(text, secretFields);
      if (stored.omitted.length > 0) headers[SECRET_OMITTED_HEADER.toLowerCase()] = stored.omitted.join(', ');
      const response: StoredResponse = { status: res.statusCode, headers, body: stored.body };
      const recorded = keyed.recorded ? this.outcomes.recordAnswer(claim.outcome, response) : Promise.resolve();
      if (this.crashes.armed('before_completion')) {
        await recorded;
        this.crashes.reach('before_completion');
      }
      await Promise.all([recorded, this.store.complete(claim, fingerprint, response)]);
    } catch (error) {
      this.logger.error({ err: error }, 'Could not store the answer of an idempotent request');
      // Redis did not take it: the claim holds until its lease runs out, and a wait the answer asks for covers that.
      if (res.getHeader('Retry-After') !== undefined && !res.headersSent) {
        const waitSeconds = Math.max(Number(res.getHeader('Retry-After')) || 0, retryAfterSeconds(claim.heldUntil - Date.now()));
        res.setHeader('Retry-After', String(waitSeconds));
      }
    }
    return body;
  }

  /** The key in Redis takes what the earlier request's row says, so that later retries learn it there. */
  private async settleAsEarlier(claim: IdempotencyClaim, fingerprint: string, earlier: EarlierOutcome): Promise<void> {
    const outcome = claimOutcomeOf(earlier);
    if (outcome.kind === 'completed') await this.store.complete(claim, fingerprint, outcome.response);
    else if (outcome.kind === 'answer_lost') {
      await this.store.leaveUnsettled(claim, fingerprint, {
        committed: outcome.tookEffect,
        transactionsInDoubt: [],
        statementsInDoubt: !outcome.tookEffect,
      });
    } else await this.store.release(claim);
  }
}

/**
 * What stops the route in place of running it: a replay is written here, where it is decided
 * (the exception filter passes `AnswerWritten` by); an error goes to the filter to be rendered.
 */
function answerInstead(res: Response, answer: WrittenAnswer | AppError): Error {
  if (answer instanceof AppError) return answer;
  writeAnswer(res, answer);
  return new AnswerWritten();
}

/** Turns a captured answer that is not sent yet into what an earlier request with the key came to; answers the body to send. */
function answerInPlace(res: Response, earlier: EarlierOutcome): string | undefined {
  const answer = answerToTakenKey(claimOutcomeOf(earlier));
  const written: WrittenAnswer =
    answer instanceof AppError ? { status: answer.status, headers: answer.headers ?? {}, body: JSON.stringify(renderError(answer)) } : answer;
  setHeaders(res, written.headers);
  res.status(written.status);
  return written.body ?? undefined;
}
