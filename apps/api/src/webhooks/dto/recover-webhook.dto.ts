import { InstantField } from '../../platform/validation/time-fields';

/** The furthest back a recovery reaches: fourteen days. */
const RECOVERY_WINDOW_MS = 14 * 24 * 3600 * 1000;

/** Body of `POST /webhooks/{id}/recover`: the window of creation times whose failed deliveries are sent again. */
export class RecoverWebhookDto {
  @InstantField(
    { earliestMs: -RECOVERY_WINDOW_MS, latestMs: 0, wording: 'in the past, at most 14 days back' },
    { description: 'Failed deliveries created at or after this instant are sent again (RFC 3339, at most 14 days back).', example: '2025-11-20T00:00:00Z' },
    true,
  )
  since: string;

  @InstantField(
    { earliestMs: -RECOVERY_WINDOW_MS, latestMs: Number.MAX_SAFE_INTEGER, wording: 'after since' },
    { description: 'Only those created before this instant (RFC 3339, after `since`); by default now.', example: '2025-11-21T00:00:00Z' },
  )
  until?: string | null;
}
