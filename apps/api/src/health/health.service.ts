import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckResult, HealthCheckService, HealthIndicatorResult, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { AppError, FieldProblem } from '@app/common';
import { DependencyHealth, HealthView } from './health.view';
import { HttpDrain } from './http-drain.service';
import { RedisHealthIndicator } from './redis.health';
import { WorkerHealthIndicator } from './worker.health';

/** A dependency slower than this is as good as down for a load balancer. */
const CHECK_TIMEOUT_MS = 1000;

@Injectable()
export class HealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly worker: WorkerHealthIndicator,
    private readonly drain: HttpDrain,
  ) {}

  /** The process runs and its event loop answers; dependencies are not consulted. */
  liveness(): HealthView {
    return { status: 'ok' };
  }

  /**
   * PostgreSQL answers `SELECT 1` and Redis answers `PING`; otherwise 503 naming what is down,
   * and 503 from SIGTERM on. The worker entry is information only: without a worker the API
   * still serves, and events wait in the outbox until one runs.
   */
  async readiness(): Promise<HealthView> {
    if (this.drain.shuttingDown) throw shuttingDown();
    try {
      const worker = this.worker.check(CHECK_TIMEOUT_MS);
      const result = await this.health.check([
        () => this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS }),
        () => this.redis.pingCheck('redis', CHECK_TIMEOUT_MS),
      ]);
      return { status: 'ok', checks: { ...toChecks(result.details), worker: await worker } };
    } catch (error) {
      if (error instanceof ServiceUnavailableException) throw notReady(error.getResponse() as HealthCheckResult);
      throw error;
    }
  }
}

function toChecks(details: HealthIndicatorResult): Record<string, DependencyHealth> {
  const checks: Record<string, DependencyHealth> = {};
  for (const [name, detail] of Object.entries(details)) {
    const message = typeof detail.message === 'string' ? detail.message : undefined;
    checks[name] = message ? { status: detail.status, message } : { status: detail.status };
  }
  return checks;
}

function shuttingDown(): AppError {
  return new AppError('service_unavailable', 'The service is shutting down.');
}

function notReady(result: HealthCheckResult): AppError {
  if (result.status === 'shutting_down') return shuttingDown();
  const problems: FieldProblem[] = Object.entries(toChecks(result.details ?? {}))
    .filter(([, check]) => check.status === 'down')
    .map(([name, check]) => ({ field: name, message: check.message ?? 'down' }));
  const names = problems.map((problem) => problem.field).join(' and ');
  return new AppError('service_unavailable', `The service is not ready: ${names} unavailable.`, problems);
}
