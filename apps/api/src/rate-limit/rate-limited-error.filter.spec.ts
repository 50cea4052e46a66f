import { ArgumentsHost, Logger } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { AuthenticationRequiredError, RateLimitExceededError } from '@app/common';
import type { AppExceptionFilter } from '../platform/filters/app-exception.filter';
import type { RateLimitService } from './rate-limit.service';
import { RateLimitedErrorFilter } from './rate-limited-error.filter';

function setup(countRefused: () => Promise<void>) {
  const rateLimits = { countRefused: jest.fn(countRefused) };
  const errors = { catch: jest.fn() };
  const filter = new RateLimitedErrorFilter(rateLimits as unknown as RateLimitService, errors as unknown as AppExceptionFilter);
  const req = { path: '/v2/users/me' };
  const res = {};
  const host: ArgumentsHost = new ExecutionContextHost([req, res]);
  return { filter, rateLimits, errors, host, req, res };
}

describe('RateLimitedErrorFilter', () => {
  const unauthenticated = new AuthenticationRequiredError();

  it('counts the request, then renders the error', async () => {
    const { filter, rateLimits, errors, host, req, res } = setup(() => Promise.resolve());
    await filter.catch(unauthenticated, host);
    expect(rateLimits.countRefused).toHaveBeenCalledWith(req, res);
    expect(errors.catch).toHaveBeenCalledWith(unauthenticated, host);
  });

  it('renders the 429 instead once the limit is spent', async () => {
    const refusal = new RateLimitExceededError(12);
    const { filter, errors, host } = setup(() => Promise.reject(refusal));
    await filter.catch(unauthenticated, host);
    expect(errors.catch).toHaveBeenCalledWith(refusal, host);
  });

  it('still renders the error when the count fails', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { filter, errors, host } = setup(() => Promise.reject(new Error('Redis is down')));
    await filter.catch(unauthenticated, host);
    expect(errors.catch).toHaveBeenCalledWith(unauthenticated, host);
    expect(logged).toHaveBeenCalled();
  });
});
