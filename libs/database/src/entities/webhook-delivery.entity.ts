import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventKind } from '@app/common';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One try at posting a delivery; `response_body` holds at most the first KiB. */
export interface DeliveryAttempt {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  /**
   * The headers sent, names lower-cased: the per-message signing headers, never the secret. Null
   * when no request went out; absent on attempts recorded before headers were kept.
   */
  request_headers?: Record<string, string> | null;
  /** The receiver's answer headers (the first 50, each value's first KiB); null when no answer came, absent as above. */
  response_headers?: Record<string, string> | null;
}

/** One event sent to one webhook, with every attempt made. `body` is the exact bytes signed. */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'webhook_id' })
  webhookId: string;

  @Column('text', { name: 'event_id' })
  eventId: string;

  @Column('text', { name: 'event_type' })
  eventType: EventKind;

  @Column('text')
  body: string;

  @Column('boolean')
  test: boolean;

  @Column('text')
  status: DeliveryStatus;

  @Column('jsonb')
  attempts: DeliveryAttempt[];

  /** How many attempts came before the current schedule: a recovery starts a fresh one, keeping the earlier attempts. */
  @Column('integer', { name: 'schedule_start' })
  scheduleStart: number;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
