import { AppError } from '@app/common';

/** Seconds a client should wait before retrying a request that met a dependency failure. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/**
 * PostgreSQL answers that mean "not now" rather than "wrong request": statement or lock timeout,
 * shutdown, too many connections, and the connection exception class (08).
 */
const POSTGRES_UNAVAILABLE = new Set(['57014', '55P03', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
const NETWORK_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** pg and ioredis report their own timeouts and closed connections by message only. */
const POSTGRES_MESSAGES = [/timeout exceeded when trying to connect/i, /^Connection terminated/i, /^Query read timeout/i, /Client has encountered a connection error/i];
const REDIS_MESSAGES = [/^Command timed out/i, /^Connection is closed/i, /max retries per request/i, /Stream isn't writeable/i];

type Dependency = 'database' | 'redis' | 'dependency';

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  driverError?: unknown;
}

function failedDependency(error: unknown, depth = 0): Dependency | null {
  if (typeof error !== 'object' || error === null || depth > 4) return null;
  const { name, code, message, cause, driverError } = error as ErrorLike;
  const text = typeof message === 'string' ? message : '';
  if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((pattern) => pattern.test(text))) return 'redis';
  if (typeof code === 'string' && POSTGRES_UNAVAILABLE.has(code)) return 'database';
  if (POSTGRES_MESSAGES.some((pattern) => pattern.test(text))) return 'database';
  if (typeof code === 'string' && NETWORK_ERRNOS.has(code)) return 'dependency';
  return failedDependency(driverError, depth + 1) ?? failedDependency(cause, depth + 1);
}

const NAMES: Record<Dependency, string> = { database: 'the database', redis: 'Redis', dependency: 'a backing service' };

/**
 * A stopped, frozen or overloaded PostgreSQL or Redis is the service's temporary state, not a
 * bug: 503 `service_unavailable` with `Retry-After`, never a 500. Null for anything else.
 */
export function dependencyFailure(error: unknown): AppError | null {
  const dependency = failedDependency(error);
  if (!dependency) return null;
  return new AppError(
    'service_unavailable',
    `The service is temporarily unavailable: ${NAMES[dependency]} did not answer in time. Retry in ${DEPENDENCY_RETRY_AFTER_SECONDS} seconds.`,
    undefined,
    { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
  );
}
