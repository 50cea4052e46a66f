import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export interface DependencyHealth {
  status: 'up' | 'down';
  message?: string;
  /** The worker entry only: replicas whose heartbeat is live. */
  workers?: number;
}

export class HealthView {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';

  @ApiPropertyOptional({
    description:
      'One entry per dependency checked: `database` and `redis`, which readiness needs, and `worker`, ' +
      'reported only (live worker replicas by their heartbeats within 30 s; down when none beat).',
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'string', enum: ['up', 'down'] },
        message: { type: 'string' },
        workers: { type: 'integer', minimum: 0, description: 'The worker entry: live worker replicas' },
      },
    },
    example: { database: { status: 'up' }, redis: { status: 'up' }, worker: { status: 'up', workers: 2 } },
  })
  checks?: Record<string, DependencyHealth>;
}
