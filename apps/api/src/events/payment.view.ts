import { ApiProperty } from '@nestjs/swagger';
import type { PaymentObject } from '@app/common';

/** `data.object` of `payment.*` events; nothing in the service emits them yet (docs/api.md#event-payload). */
export class PaymentView implements PaymentObject {
  @ApiProperty({ example: 'pay_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  id: string;

  @ApiProperty({ enum: ['payment'], example: 'payment' })
  object: 'payment';

  @ApiProperty({ type: 'integer', minimum: 0, example: 4900, description: 'In the smallest unit of the currency (cents).' })
  amount: number;

  @ApiProperty({ example: 'usd', description: 'ISO 4217, lower case.' })
  currency: string;

  @ApiProperty({ enum: ['succeeded', 'failed'], example: 'succeeded' })
  status: 'succeeded' | 'failed';

  @ApiProperty({ type: String, nullable: true, example: null, description: 'Why it failed; null unless `status` is `failed`.' })
  failure_reason: string | null;

  @ApiProperty({ example: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X', description: 'The paying user (`usr_`).' })
  customer_id: string;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  created_at: string;
}
