import { applyDecorators, Controller, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../platform/decorators/public.decorator';
import { CountedAsSignedIn } from '../rate-limit/page-sign-in';
import { ConsoleSessionGuard } from './access/console-session.guard';
import { ConsoleExceptionFilter } from './console-exception.filter';

/**
 * A controller of console pages under `/console/<path>`. Public to the API's credential guards,
 * as the OAuth pages are: the console checks its session itself (ConsoleSessionGuard), answers
 * in pages and redirects (ConsoleExceptionFilter), and is left out of the OpenAPI document. The
 * rate limit counts a signed-in person's pages against their account and plan, as it counts the
 * API's credentials, and the rest by client IP.
 */
export function ConsolePages(path = ''): ClassDecorator {
  return applyDecorators(
    Controller(path ? `console/${path}` : 'console'),
    Public(),
    CountedAsSignedIn(ConsoleSessionGuard),
    ApiExcludeController(),
    UseGuards(ConsoleSessionGuard),
    UseFilters(ConsoleExceptionFilter),
  );
}
