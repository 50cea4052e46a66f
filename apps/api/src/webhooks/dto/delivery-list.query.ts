import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { EVENT_KINDS, EventKind } from '@app/common';
import type { DeliveryStatus } from '@app/database';
import { OffsetPageQuery } from '../../platform/pagination/offset-page.query';

const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/** `GET /webhooks/{id}/deliveries`: offset pages, narrowed by status and event kind. */
export class DeliveryListQuery extends OffsetPageQuery {
  @ApiPropertyOptional({ enum: [...DELIVERY_STATUSES], description: 'Only the deliveries in this status.', example: 'failed' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;

  @ApiPropertyOptional({ enum: [...EVENT_KINDS], description: 'Only the deliveries of this kind of event.', example: 'resource.created' })
  @IsOptional()
  @IsIn(EVENT_KINDS, { message: `must be one of ${EVENT_KINDS.join(', ')}` })
  event_type?: EventKind;
}
