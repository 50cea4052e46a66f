import { Client } from 'pg';
import type { EntitySubscriberInterface, QueryRunner, TransactionStartEvent } from 'typeorm';
import { loadConfig } from '@app/config';
import { behindConnectionPooler, dataSourceOptions, transactionLimitsStatement } from './data-source-options';

const SERVER = 'postgres://app@db:5432/rms';
const POOLER = 'postgres://app@pgbouncer:6432/rms';
const SETTINGS = {
  JWT_SECRET: 'x'.repeat(32),
  DATABASE_STATEMENT_TIMEOUT_MS: '1500',
  DATABASE_LOCK_TIMEOUT_MS: '700',
  DATABASE_CONNECT_TIMEOUT_MS: '900',
};

/** A postgres DataSourceOptions as the tests read it: url, extra and subscribers. */
interface ReadOptions {
  url?: string;
  extra?: Record<string, unknown>;
  subscribers?: (new () => EntitySubscriberInterface)[];
}

const configOf = (env: Record<string, string>) => loadConfig({ ...SETTINGS, ...env });

function optionsFor(env: Record<string, string>, forMigrations = false): ReadOptions {
  return dataSourceOptions(configOf(env), forMigrations) as ReadOptions;
}

describe('dataSourceOptions', () => {
  describe('with DATABASE_URL the server itself (DATABASE_DIRECT_URL unset or equal)', () => {
    const unpooled: Record<string, string>[] = [{ DATABASE_URL: SERVER }, { DATABASE_URL: SERVER, DATABASE_DIRECT_URL: SERVER }];

    it.each(unpooled)('keeps the limits startup parameters (%o)', (env) => {
      expect(behindConnectionPooler(configOf(env))).toBe(false);
      const options = optionsFor(env);
      expect(options.url).toBe(SERVER);
      expect(options.subscribers).toBeUndefined();
      expect(options.extra).toEqual({
        max: 10,
        connectionTimeoutMillis: 900,
        statement_timeout: 1500,
        lock_timeout: 700,
        idle_in_transaction_session_timeout: 7500,
        Client: expect.objectContaining({ deadlineMs: 2500 }),
      });
      expect((options.extra?.Client as { prototype: unknown }).prototype).toBeInstanceOf(Client);
    });

    it('migrates on the same server, without the request limits or a role default of theirs', () => {
      const options = optionsFor({ DATABASE_URL: SERVER }, true);
      expect(options.url).toBe(SERVER);
      expect(options.subscribers).toBeUndefined();
      expect(options.extra).toEqual({ max: 10, connectionTimeoutMillis: 900, options: '-c statement_timeout=0 -c lock_timeout=0' });
    });
  });

  describe('with DATABASE_URL a pooler (DATABASE_DIRECT_URL another address)', () => {
    const env = { DATABASE_URL: POOLER, DATABASE_DIRECT_URL: SERVER };

    it('sends no startup parameter a pooler in transaction mode refuses, and keeps the client bound', () => {
      expect(behindConnectionPooler(configOf(env))).toBe(true);
      const options = optionsFor(env);
      expect(options.url).toBe(POOLER);
      expect(options.extra).toEqual({ max: 10, connectionTimeoutMillis: 900, Client: expect.objectContaining({ deadlineMs: 2500 }) });
    });

    it('sets the limits at the start of each transaction, for that transaction only', async () => {
      const [limits, ...others] = optionsFor(env).subscribers ?? [];
      expect(limits).toBeDefined();
      expect(others).toEqual([]);
      const query = jest.fn().mockResolvedValue([]);
      const event = { queryRunner: { query } as unknown as QueryRunner } as TransactionStartEvent;
      await new limits().afterTransactionStart?.(event);
      expect(query).toHaveBeenCalledTimes(1);
      expect(query).toHaveBeenCalledWith(
        'SET LOCAL statement_timeout = 1500; SET LOCAL lock_timeout = 700; SET LOCAL idle_in_transaction_session_timeout = 7500',
      );
      expect(transactionLimitsStatement(configOf(env))).toBe(query.mock.calls[0][0]);
    });

    it('migrates through DATABASE_DIRECT_URL, unbounded by the pooled role defaults', () => {
      const options = optionsFor(env, true);
      expect(options.url).toBe(SERVER);
      expect(options.subscribers).toBeUndefined();
      expect(options.extra).toEqual({ max: 10, connectionTimeoutMillis: 900, options: '-c statement_timeout=0 -c lock_timeout=0' });
    });
  });
});
