import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EVENT_KINDS, EventKind, idPattern } from '@app/common';
import type { DeliveryAttempt, DeliveryHealth, WebhookDeliveryEntity, WebhookEntity, WebhookStatus } from '@app/database';

export class WebhookView {
  @ApiProperty({ pattern: idPattern('wh'), example: 'wh_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  id: string;

  @ApiProperty({ format: 'uri', example: 'https://hooks.example.com/rms' })
  url: string;

  @ApiProperty({ enum: [...EVENT_KINDS], isArray: true, example: ['resource.created'] })
  events: EventKind[];

  @ApiProperty({
    enum: ['enabled', 'disabled', 'paused'],
    example: 'enabled',
    description: '`paused` holds deliveries (made, not sent; never disabled) until the webhook is `enabled` again.',
  })
  status: WebhookStatus;

  @ApiProperty({ type: String, nullable: true, example: 'Orders service, production' })
  description: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why deliveries stopped, while disabled.' })
  disabled_reason: string | null;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  created_at: string;

  @ApiProperty({ format: 'date-time', example: '2025-11-21T09:30:00.000Z' })
  updated_at: string;
}

export class CreatedWebhookView extends WebhookView {
  @ApiPropertyOptional({
    description:
      'The signing secret, shown only in this response. Left out of an `Idempotency-Key` replay (which says ' +
      '`Idempotent-Secret-Omitted: secret`): secrets are never stored for replays.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret?: string;
}

export class RotatedSecretView {
  @ApiPropertyOptional({
    description:
      'The new signing secret, shown only in this response (left out of an `Idempotency-Key` replay, which says ' +
      '`Idempotent-Secret-Omitted: secret`).',
    example: 'whsec_Q2hhbmdlZCBzZWNyZXQgZm9yIHRoZSBob29r',
  })
  secret?: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Until then every delivery is signed with both secrets; after it, with the new one alone.',
    example: '2025-11-22T09:30:00.000Z',
  })
  previous_secret_expires_at: string;
}

export class RecoveryView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many failed deliveries were queued again.', example: 3 })
  queued: number;
}

export class DeliveryAttemptView {
  @ApiProperty({ format: 'date-time' })
  attempted_at: string;

  @ApiProperty({ type: 'integer', nullable: true })
  status_code: number | null;

  @ApiProperty({ type: 'integer' })
  duration_ms: number;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The first KiB of the response body.' })
  response_body: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description:
      'The headers sent, names lower-cased: the signature headers, never the secret. Null when no request went out, ' +
      'and on attempts made before headers were recorded.',
    example: {
      host: 'hooks.example.com',
      'content-type': 'application/json',
      'webhook-id': 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X',
      'webhook-timestamp': '1763717400',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    },
  })
  request_headers: Record<string, string> | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description:
      "The receiver's answer headers, names lower-cased: the first 50, each value cut to its first KiB. Null when no " +
      'answer came, and on attempts made before headers were recorded.',
    example: { 'content-type': 'text/plain', 'content-length': '2' },
  })
  response_headers: Record<string, string> | null;
}

export class DeliveryView {
  @ApiProperty({ pattern: idPattern('dlv'), example: 'dlv_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  id: string;

  @ApiProperty({ pattern: idPattern('wh'), example: 'wh_01JD3Q0F6K8W2M4N6P8R0T2V4X' })
  webhook_id: string;

  @ApiProperty({ pattern: idPattern('evt'), example: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X', description: 'The event sent: a stored one, or a fresh sample for a test.' })
  event_id: string;

  @ApiProperty({ enum: [...EVENT_KINDS] })
  event_type: EventKind;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] })
  status: 'pending' | 'succeeded' | 'failed';

  @ApiProperty({ type: [DeliveryAttemptView] })
  attempts: DeliveryAttemptView[];

  @ApiProperty({ format: 'date-time', type: String, nullable: true })
  next_attempt_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** The public form of a webhook: never its secret. */
export function toWebhookView(webhook: WebhookEntity): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    status: webhook.status,
    description: webhook.description,
    disabled_reason: webhook.disabledReason,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

export function toDeliveryView(delivery: WebhookDeliveryEntity): DeliveryView {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts.map(toDeliveryAttemptView),
    next_attempt_at: delivery.nextAttemptAt ? delivery.nextAttemptAt.toISOString() : null,
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
  };
}

/** An attempt as stored, with the fields attempts recorded before them lack given as null. */
function toDeliveryAttemptView(attempt: DeliveryAttempt): DeliveryAttemptView {
  return {
    attempted_at: attempt.attempted_at,
    status_code: attempt.status_code,
    duration_ms: attempt.duration_ms,
    error: attempt.error,
    response_body: attempt.response_body,
    request_headers: attempt.request_headers ?? null,
    response_headers: attempt.response_headers ?? null,
  };
}

/**
 * How a webhook is doing, for the console: its deliveries of the last 24 hours by status, the
 * share of the finished ones that succeeded (null when none finished), and its newest delivery.
 */
export interface WebhookHealthView {
  succeeded_24h: number;
  failed_24h: number;
  pending_24h: number;
  success_rate_24h: number | null;
  last_delivery: { created_at: string; status: DeliveryView['status'] } | null;
}

export function toWebhookHealthView(health: DeliveryHealth): WebhookHealthView {
  const finished = health.succeeded + health.failed;
  return {
    succeeded_24h: health.succeeded,
    failed_24h: health.failed,
    pending_24h: health.pending,
    success_rate_24h: finished === 0 ? null : health.succeeded / finished,
    last_delivery: health.lastDelivery ? { created_at: health.lastDelivery.createdAt.toISOString(), status: health.lastDelivery.status } : null,
  };
}
