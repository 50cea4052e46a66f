import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Response } from 'express';
import { Public } from '../common/decorators/public.decorator';
import { HttpMetrics } from './http-metrics';

@ApiTags('Operations')
@Public()
@SkipThrottle()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: HttpMetrics) {}

  @Get()
  @ApiOperation({ summary: 'Prometheus metrics', description: 'Prometheus text exposition format; no credential.' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Request counters, latency histograms and process metrics', schema: { type: 'string' } })
  async scrape(@Res() res: Response): Promise<void> {
    const body = await this.metrics.registry.metrics();
    res.setHeader('Cache-Control', 'no-store');
    res.type(this.metrics.registry.contentType).send(body);
  }
}
