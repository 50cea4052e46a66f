import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Response } from 'express';
import { Public } from '../platform/decorators/public.decorator';
import { ApiTag } from '../platform/openapi/api-tags';
import { responseHeaders } from '../platform/openapi/http-headers';
import { HttpMetrics } from './http-metrics';

@ApiTag('Operations')
@Public()
@SkipThrottle()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: HttpMetrics) {}

  @Get()
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description: 'Prometheus text exposition format; requests are labelled by route pattern, never by raw path. No credential.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Request counters, latency histograms and process metrics',
    headers: responseHeaders('Cache-Control'),
    schema: { type: 'string' },
  })
  async scrape(@Res() res: Response): Promise<void> {
    const body = await this.metrics.registry.metrics();
    res.setHeader('Cache-Control', 'no-store');
    res.type(this.metrics.registry.contentType).send(body);
  }
}
