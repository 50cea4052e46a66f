import { ExecutionContext, Logger, Post } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { DatabaseError } from 'pg';
import type { QueryRunner } from 'typeorm';
import { AppError } from '@app/common';
import type { AppConfig } from '@app/config';
import { AnswerWritten } from '../answers/answer-writer';
import { RouteTable } from '../routing/route-table';
import { CrashPoints } from './crash-points';
import { IdempotencyOutcomeRepository, OutcomeKey } from './idempotency-outcome.repository';
import type { AuthenticatedRequest } from '../decorators/auth.decorator';
import { IdempotencyGuard } from './idempotency.guard';
import { ONE_TIME_SECRET_FIELDS, OneTimeSecrets } from './one-time-secret.decorator';
import { WriteLedger, writeLedgers } from './write-ledger';
import type { ClaimOutcome, IdempotencyClaim, IdempotencyStore } from './idempotency.store';

/** A store whose every call is recorded; `claim` answers `outcome`. */
function fakeStore(outcome: ClaimOutcome) {
  return {
    claim: jest.fn().mockResolvedValue(outcome),
    hold: jest.fn().mockReturnValue(jest.fn()),
    complete: jest.fn().mockResolvedValue(undefined),
    release: jest.fn().mockResolvedValue(undefined),
    leaveUnsettled: jest.fn().mockResolvedValue(undefined),
  };
}

/** An outcome repository whose every call is recorded. */
function fakeOutcomes() {
  return {
    recordAnswer: jest.fn().mockResolvedValue(undefined),
    discard: jest.fn().mockResolvedValue(undefined),
    earlierOf: jest.fn().mockResolvedValue(null),
  };
}

/** The app's keyed writes: one whose answer shows a secret once. */
class KeyedRoutes {
  @Post('resources')
  create(this: void): void {}

  @Post('api-keys')
  @OneTimeSecrets('key')
  createKey(this: void): void {}
}

function guardOf(store: ReturnType<typeof fakeStore>, outcomes = fakeOutcomes(), reflector = new Reflector()): IdempotencyGuard {
  const discovery = { getControllers: () => [{ metatype: KeyedRoutes }] } as unknown as DiscoveryService;
  return new IdempotencyGuard(
    store as unknown as IdempotencyStore,
    outcomes as unknown as IdempotencyOutcomeRepository,
    new CrashPoints({} as AppConfig),
    reflector,
    new RouteTable(discovery, new MetadataScanner()),
  );
}

/** The response parts the guard uses, and a promise of what Express finally sends. */
function fakeResponse() {
  const headers = new Map<string, string>();
  let sent!: (body: unknown) => void;
  const delivered = new Promise<unknown>((resolve) => (sent = resolve));
  const res = {
    req: {},
    statusCode: 200,
    headersSent: false,
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), value),
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    send(body: unknown) {
      sent(body);
      return this;
    },
  };
  return { res, headers, delivered };
}

function contextFor(res: ReturnType<typeof fakeResponse>['res'], handler: (...args: never[]) => unknown = KeyedRoutes.prototype.create): ExecutionContext {
  const req = {
    method: 'POST',
    originalUrl: '/v2/resources',
    headers: { 'idempotency-key': 'key-1' },
    body: { name: 'x' },
    auth: { userId: 'usr_1' },
  } as unknown as AuthenticatedRequest;
  return new ExecutionContextHost([req, res], KeyedRoutes, handler);
}

describe('IdempotencyGuard', () => {
  const outcomeKey: OutcomeKey = { accountId: 'usr_1', keyHash: 'k', fingerprint: 'f', claimToken: 't', retentionSeconds: 86400 };
  const claim: IdempotencyClaim = { redisKey: 'idempotency:usr_1:k', marker: '{}', outcome: outcomeKey, heldUntil: 0 };

  /** Claims as the guard does for a request, lets `work` write through the ledger, then sends an answer of `status`. */
  async function answer(
    store: ReturnType<typeof fakeStore>,
    status: number,
    work: (ledger: WriteLedger) => void = () => undefined,
    outcomes = fakeOutcomes(),
  ) {
    const guard = guardOf(store, outcomes);
    const response = fakeResponse();
    const ledger = new WriteLedger();
    await writeLedgers.run(ledger, () => guard.canActivate(contextFor(response.res)));
    work(ledger);
    response.res.statusCode = status;
    if (status === 503) response.res.setHeader('Retry-After', '2');
    response.res.send('{"error":{}}');
    await response.delivered;
    return response;
  }

  const wroteOutsideTransaction = (ledger: WriteLedger): void => {
    const runner = { isTransactionActive: false } as QueryRunner;
    ledger.sending(runner, 'INSERT INTO resources ...');
    ledger.answered(runner, true, undefined);
  };

  it('frees the key of an error answer at once when nothing was written, and stops renewing it', async () => {
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    const { headers } = await answer(store, 503);
    expect(store.release).toHaveBeenCalledTimes(1);
    expect(store.leaveUnsettled).not.toHaveBeenCalled();
    expect(headers.get('retry-after')).toBe('2');
    const stopHolding = store.hold.mock.results[0].value as jest.Mock;
    expect(stopHolding).toHaveBeenCalledTimes(1);
  });

  it('keeps what the writes came to when an error answer follows a write that took effect', async () => {
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    await answer(store, 500, wroteOutsideTransaction);
    expect(store.release).not.toHaveBeenCalled();
    expect(store.leaveUnsettled).toHaveBeenCalledWith(expect.anything(), expect.any(String), {
      committed: true,
      transactionsInDoubt: [],
      statementsInDoubt: false,
    });
  });

  it('stores a replayable answer', async () => {
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    await answer(store, 201);
    expect(store.complete).toHaveBeenCalledWith(expect.anything(), expect.any(String), expect.objectContaining({ status: 201 }));
  });

  it("reads each route's one-time secret fields at start-up, and no decorator through the Reflector on a request", async () => {
    const reflector = new Reflector();
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    const guard = guardOf(store, fakeOutcomes(), reflector);
    const reads = jest.spyOn(reflector, 'get');
    guard.onModuleInit();
    expect(reads).toHaveBeenCalledTimes(2);
    expect(reads).toHaveBeenCalledWith(ONE_TIME_SECRET_FIELDS, KeyedRoutes.prototype.createKey);

    reads.mockClear();
    const response = fakeResponse();
    await writeLedgers.run(new WriteLedger(), () => guard.canActivate(contextFor(response.res, KeyedRoutes.prototype.createKey)));
    response.res.statusCode = 201;
    response.res.send('{"data":{"id":"key_1","key":"shown-once"}}');
    await response.delivered;
    expect(store.complete).toHaveBeenCalledWith(
      expect.anything(),
      expect.any(String),
      expect.objectContaining({ body: '{"data":{"id":"key_1"}}', headers: expect.objectContaining({ 'idempotent-secret-omitted': 'key' }) }),
    );
    expect(reads).not.toHaveBeenCalled();
  });

  /** A transaction of the request committed with the key's outcome row in it. */
  const committedWithOutcome = (ledger: WriteLedger): void => {
    const runner = { isTransactionActive: true } as QueryRunner;
    ledger.beforeCommit(runner, '1234', true);
    ledger.afterCommit(runner);
  };

  it('records the answer in the outcome row as well as in Redis, so that it outlasts Redis failing the completion write', async () => {
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    store.complete.mockRejectedValue(new Error('Command timed out'));
    const outcomes = fakeOutcomes();
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { delivered } = await answer(store, 201, committedWithOutcome, outcomes);
    expect(await delivered).toBe('{"error":{}}');
    expect(outcomes.recordAnswer).toHaveBeenCalledWith(outcomeKey, expect.objectContaining({ status: 201, body: '{"error":{}}' }));
    expect(logged).toHaveBeenCalledWith(expect.anything(), 'Could not store the answer of an idempotent request');
    logged.mockRestore();
  });

  it('records no answer for a request that wrote no outcome row, and removes the mark of a write refused', async () => {
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    const outcomes = fakeOutcomes();
    await answer(store, 201, undefined, outcomes);
    expect(outcomes.recordAnswer).not.toHaveBeenCalled();

    const refused = fakeOutcomes();
    const markedThenRefused = (ledger: WriteLedger): void => {
      ledger.marked();
      const runner = { isTransactionActive: false } as QueryRunner;
      ledger.sending(runner, 'INSERT INTO api_keys ...');
      ledger.answered(runner, false, Object.assign(new DatabaseError('deadlock detected', 0, 'error'), { code: '40P01' }));
    };
    await answer(fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } }), 503, markedThenRefused, refused);
    expect(refused.discard).toHaveBeenCalledWith(outcomeKey);
  });

  it('a retry stopped by the outcome row of an earlier request settles its key in Redis as that row says, and leaves the row alone', async () => {
    const earlierAnswer = { status: 201, headers: { etag: '"1"' }, body: '{"data":{"id":"res_1"}}' };
    const stoppedBy = (response: typeof earlierAnswer | null) => (ledger: WriteLedger) => {
      expect(() => ledger.checkOutcome({ ours: false, same_request: true, response, took_effect: true, xact_id: null })).toThrow();
    };
    const replayed = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    const outcomes = fakeOutcomes();
    await answer(replayed, 201, stoppedBy(earlierAnswer), outcomes);
    expect(replayed.complete).toHaveBeenCalledWith(expect.anything(), expect.any(String), earlierAnswer);
    expect(outcomes.recordAnswer).not.toHaveBeenCalled();

    const lost = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    await answer(lost, 409, stoppedBy(null));
    expect(lost.leaveUnsettled).toHaveBeenCalledWith(expect.anything(), expect.any(String), {
      committed: true,
      transactionsInDoubt: [],
      statementsInDoubt: false,
    });
  });

  it('a refusal before any write answers what an earlier request with the key came to, and a refusal without one stands', async () => {
    const earlierAnswer = { status: 200, headers: { etag: '"2"' }, body: '{"data":{"id":"res_1"}}' };
    const outcomes = fakeOutcomes();
    outcomes.earlierOf.mockResolvedValue({ sameRequest: true, answer: earlierAnswer, tookEffect: true });
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    const { res, headers, delivered } = await answer(store, 412, undefined, outcomes);
    expect(await delivered).toBe(earlierAnswer.body);
    expect(res.statusCode).toBe(200);
    expect(headers.get('idempotent-replayed')).toBe('true');
    expect(headers.get('etag')).toBe('"2"');
    expect(outcomes.earlierOf).toHaveBeenCalledWith(outcomeKey);
    expect(store.complete).toHaveBeenCalledWith(expect.anything(), expect.any(String), earlierAnswer);

    const alone = fakeOutcomes();
    const refused = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 6000 } });
    const refusal = await answer(refused, 412, undefined, alone);
    expect(await refusal.delivered).toBe('{"error":{}}');
    expect(refusal.res.statusCode).toBe(412);
    expect(refused.complete).toHaveBeenCalledWith(expect.anything(), expect.any(String), expect.objectContaining({ status: 412 }));
  });

  it('when Redis does not take the release, the answer asks for a wait that covers what the claim still holds', async () => {
    const store = fakeStore({ kind: 'claimed', claim: { ...claim, heldUntil: Date.now() + 5500 } });
    store.release.mockRejectedValue(new Error('Connection is closed.'));
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { headers } = await answer(store, 503);
    expect(headers.get('retry-after')).toBe('6');
    expect(logged).toHaveBeenCalledWith(expect.anything(), 'Could not store the answer of an idempotent request');
    logged.mockRestore();
  });

  it('answers 409 with the seconds a running claim still holds, and 409 answer_lost for an unsettled key', async () => {
    const guard = (outcome: ClaimOutcome) => guardOf(fakeStore(outcome));
    const refusal = (outcome: ClaimOutcome) =>
      writeLedgers.run(new WriteLedger(), () => Promise.resolve(guard(outcome).canActivate(contextFor(fakeResponse().res)))).catch((error: unknown) => error);

    const inProgress = (await refusal({ kind: 'in_progress', retryAfterSeconds: 4 })) as AppError;
    expect(inProgress).toBeInstanceOf(AppError);
    expect({ code: inProgress.code, status: inProgress.status, headers: inProgress.headers }).toEqual({
      code: 'idempotency_key_in_progress',
      status: 409,
      headers: { 'Retry-After': '4' },
    });
    const lost = (await refusal({ kind: 'answer_lost', tookEffect: true })) as AppError;
    expect({ code: lost.code, status: lost.status }).toEqual({ code: 'idempotency_key_answer_lost', status: 409 });
  });

  it('writes the replay of a completed key itself, and only stops the route', async () => {
    const stored = { status: 201, headers: { 'content-type': 'application/json; charset=utf-8', location: '/v2/resources/res_1' }, body: '{"data":{}}' };
    const response = fakeResponse();
    const refused = await writeLedgers
      .run(new WriteLedger(), () => Promise.resolve(guardOf(fakeStore({ kind: 'completed', response: stored })).canActivate(contextFor(response.res))))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AnswerWritten);
    expect(await response.delivered).toBe(stored.body);
    expect(response.res.statusCode).toBe(201);
    expect(Object.fromEntries(response.headers)).toEqual({ 'idempotent-replayed': 'true', ...stored.headers });
  });
});
