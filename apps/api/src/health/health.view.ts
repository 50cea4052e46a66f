import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export interface DependencyHealth {
  status: 'up' | 'down';
  message?: string;
}

export class HealthView {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';

  @ApiPropertyOptional({
    description: 'One entry per dependency checked',
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: { status: { type: 'string', enum: ['up', 'down'] }, message: { type: 'string' } },
    },
    example: { database: { status: 'up' }, redis: { status: 'up' } },
  })
  checks?: Record<string, DependencyHealth>;
}
