import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '../platform/decorators/public.decorator';
import { ApiDataResponse, ApiErrorsWithHeaders } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { HealthService } from './health.service';
import { HealthView } from './health.view';

@ApiTag('Operations')
@Public()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'checkLiveness', summary: 'Liveness probe', description: 'The process is up; nothing outside it is checked. No credential.' })
  @ApiDataResponse(HealthView, 200, 'Alive', ['Cache-Control'])
  // The route's Cache-Control is set before its handler runs, so a failing handler's answer has it too.
  @ApiErrorsWithHeaders(['Cache-Control'], 500)
  live(): HealthView {
    return this.health.liveness();
  }

  @Get('ready')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'checkReadiness',
    summary: 'Readiness probe',
    description:
      'PostgreSQL and Redis answer. 503 `service_unavailable` names what is down; 503 too from SIGTERM on, while the ' +
      'process still serves other requests for `SHUTDOWN_DELAY_MS`, so that load balancers let it go. The `worker` entry ' +
      'counts live workers and never causes a 503: events wait in the outbox until a worker runs. No credential.',
  })
  @ApiDataResponse(HealthView, 200, 'Ready', ['Cache-Control'])
  @ApiErrorsWithHeaders(['Cache-Control'], 500, 503)
  ready(): Promise<HealthView> {
    return this.health.readiness();
  }
}
