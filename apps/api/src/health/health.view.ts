import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export interface DependencyHealth {
  status: 'up' | 'down';
  message?: string;
  /** The worker entry only: replicas whose heartbeat is live. */
  workers?: number;
}

export class DependencyHealthView implements DependencyHealth {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' })
  status: 'up' | 'down';

  @ApiPropertyOptional({ description: 'Why it is down.' })
  message?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'The worker entry: live worker replicas.', example: 2 })
  workers?: number;
}

/** The dependencies readiness checks: PostgreSQL and Redis, which it needs, and the workers, reported only. */
export class HealthChecksView {
  @ApiProperty({ type: DependencyHealthView, description: 'PostgreSQL answers `SELECT 1` within 1 second.' })
  database: DependencyHealth;

  @ApiProperty({ type: DependencyHealthView, description: 'Redis answers `PING` within 1 second.' })
  redis: DependencyHealth;

  @ApiProperty({
    type: DependencyHealthView,
    description: 'Live worker replicas, by their heartbeats within 30 s; down when none beat. Never makes readiness fail.',
  })
  worker: DependencyHealth;
}

export class HealthView {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';

  @ApiPropertyOptional({ type: HealthChecksView, description: 'Readiness only.' })
  checks?: Record<string, DependencyHealth>;
}
