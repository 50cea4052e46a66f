import { ArgumentsHost, Catch, ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import type { Response } from 'express';
import { AppError, RateLimitExceededError } from '@app/common';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { AppExceptionFilter } from '../platform/filters/app-exception.filter';
import { httpRequestOf, httpResponseOf } from '../platform/request/http-arguments';
import { RateLimitService } from './rate-limit.service';

/**
 * Counts the requests that fail before RateLimitGuard counted them, so that they carry the headers
 * and an IP cannot probe credentials or paths, or send bodies, without limit: failed
 * authentication (by client IP, a revoked credential included), a failed permission check (by
 * account), unknown routes and bodies the parser refuses (400, 413, 415, by client IP). A request
 * the guard already counted is not counted again. Past the limit the answer is the 429 instead.
 * AppExceptionFilter renders either; Nest asks global filters registered later first, so this one
 * is asked before it.
 */
@Catch(AppError, NotFoundException)
export class RateLimitedErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('RateLimit');

  constructor(
    private readonly rateLimits: RateLimitService,
    private readonly errors: AppExceptionFilter,
  ) {}

  async catch(exception: AppError | NotFoundException, host: ArgumentsHost): Promise<void> {
    // A refusal of the service itself (429, 5xx) is not the client's to pay for, and a 503 may
    // mean Redis is the one away.
    const status = exception instanceof AppError ? exception.status : exception.getStatus();
    const counted = status < 429;
    const answer = counted ? await this.countFor(exception, httpRequestOf<AuthenticatedRequest>(host), httpResponseOf(host)) : exception;
    this.errors.catch(answer, host);
  }

  /** The error to answer with: the original, or the 429 once over the limit. */
  private async countFor(exception: unknown, req: AuthenticatedRequest, res: Response): Promise<unknown> {
    try {
      await this.rateLimits.countRefused(req, res);
      return exception;
    } catch (error) {
      if (error instanceof RateLimitExceededError) return error;
      this.logger.error({ err: error, requestId: req.id }, 'Rate limit not counted');
      return exception;
    }
  }
}
