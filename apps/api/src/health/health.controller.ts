import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '../common/decorators/public.decorator';
import { ApiDataResponse, ApiErrors } from '../common/openapi/api-responses';
import { HealthService } from './health.service';
import { HealthView } from './health.view';

@ApiTags('Operations')
@Public()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Liveness probe', description: 'The process is up. No credential.' })
  @ApiDataResponse(HealthView)
  live(): HealthView {
    return this.health.liveness();
  }

  @Get('ready')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Readiness probe',
    description:
      'PostgreSQL and Redis answer. 503 `service_unavailable` names what is down. The `worker` entry ' +
      'counts live workers and never causes a 503: events wait in the outbox until a worker runs. No credential.',
  })
  @ApiDataResponse(HealthView)
  @ApiErrors(503)
  ready(): Promise<HealthView> {
    return this.health.readiness();
  }
}
