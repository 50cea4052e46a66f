import { randomBytes } from 'node:crypto';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import {
  AuthContext,
  ConflictError,
  isId,
  newId,
  offsetMeta,
  Paginated,
  EventKind,
  HOST_RESOLUTION_DEADLINE_MS,
  ResourceNotFoundError,
  ValidationError,
  WebhookHostResolver,
} from '@app/common';
import { AppConfig } from '@app/config';
import { deliveryJob, queueDeliveryJob, queueNextAttempts, WEBHOOK_DELIVERIES_QUEUE, WebhookDeliveryJob } from '@app/queue';
import { activeTraceContext } from '@app/telemetry';
import { WebhookDeliveryEntity, WebhookEntity } from '@app/database';
import { WebhookDeliveryRepository } from '@app/database/delivery-data/webhook-delivery.repository';
import { WebhookRepository } from '@app/database/delivery-data/webhook.repository';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { DEFAULT_OVERLAP_SECONDS } from '../platform/validation/time-fields';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { DeliveryListQuery } from './dto/delivery-list.query';
import { RecoverWebhookDto } from './dto/recover-webhook.dto';
import { RotateWebhookSecretDto } from './dto/rotate-webhook-secret.dto';
import { sampleEvent } from './sample-event';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  CreatedWebhookView,
  DeliveryView,
  RecoveryView,
  RotatedSecretView,
  toDeliveryView,
  toWebhookHealthView,
  toWebhookView,
  WebhookHealthView,
  WebhookView,
} from './webhook.view';

const DEFAULT_PER_PAGE = 20;

/**
 * One answer for a private, loopback or unresolvable host: it names no address, and does not
 * tell an internal name that resolves from one that does not (docs/api.md#webhook-urls).
 */
const REFUSED_TARGET = 'must point to a public host: one that resolves, and not to a loopback, private, link-local or reserved address';
const LOOPBACK_HTTP_REFUSED =
  'must be an https:// URL; http:// to a loopback host is taken only by a service run for local development (WEBHOOK_ALLOW_LOOPBACK_HTTP=true)';
const UNANSWERED_TARGET = `must have a host whose DNS answers within ${HOST_RESOLUTION_DEADLINE_MS / 1000} seconds; it did not (try again later)`;

/** A Standard Webhooks style secret: `whsec_` and the base64 of 24 random bytes. */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Webhooks belong to their maker: every read and write is narrowed to the caller's own. */
@Injectable()
export class WebhooksService implements OnApplicationBootstrap {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly config: AppConfig,
    private readonly targets: WebhookHostResolver,
    @InjectQueue(WEBHOOK_DELIVERIES_QUEUE) private readonly queue: Queue<WebhookDeliveryJob>,
  ) {}

  /**
   * The queue's connection finishes its set-up before the API serves: a SIGTERM right after
   * start then closes an idle connection, instead of failing set-up commands still in flight.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.queue.waitUntilReady();
  }

  async create(auth: AuthContext, input: CreateWebhookDto): Promise<CreatedWebhookView> {
    await this.assertReachableTarget(input.url);
    const secret = input.secret ?? newWebhookSecret();
    const webhook = await this.webhooks.insert({
      id: newId('wh'),
      ownerId: auth.userId,
      url: input.url,
      events: input.events,
      secret,
      description: input.description ?? null,
    });
    return { ...toWebhookView(webhook), secret };
  }

  async list(auth: AuthContext, query: OffsetPageQuery, basePath: string): Promise<Paginated<WebhookView>> {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const [webhooks, total] = await this.webhooks.listOwned(auth.userId, (page - 1) * perPage, perPage);
    return new Paginated(webhooks.map(toWebhookView), { ...offsetMeta(basePath, {}, page, perPage, total) });
  }

  async get(auth: AuthContext, id: string): Promise<WebhookView> {
    return toWebhookView(await this.owned(auth, id));
  }

  async update(auth: AuthContext, id: string, input: UpdateWebhookDto): Promise<WebhookView> {
    if (input.url !== undefined) await this.assertReachableTarget(input.url);
    const updated = isId('wh', id) ? await this.webhooks.update(auth.userId, id, input) : null;
    if (!updated) throw new ResourceNotFoundError('Webhook', id);
    if (input.status === 'enabled') {
      // Held and waiting deliveries are due again, oldest first; should queueing fail, the sweeper sends them.
      await queueNextAttempts(this.queue, await this.deliveries.releaseHeld(updated.id), activeTraceContext());
    }
    return toWebhookView(updated);
  }

  /**
   * Replaces the signing secret (given, or a new `whsec_`); the previous one keeps signing every
   * delivery alongside it for `expires_in` seconds (a day by default), so that a receiver can
   * switch without a failed delivery.
   */
  async rotateSecret(auth: AuthContext, id: string, input: RotateWebhookSecretDto): Promise<RotatedSecretView> {
    const secret = input.secret ?? newWebhookSecret();
    const previousExpiresAt = new Date(Date.now() + (input.expires_in ?? DEFAULT_OVERLAP_SECONDS) * 1000);
    const rotated = isId('wh', id) ? await this.webhooks.rotateSecret(auth.userId, id, secret, previousExpiresAt) : null;
    if (!rotated) throw new ResourceNotFoundError('Webhook', id);
    return { secret, previous_secret_expires_at: previousExpiresAt.toISOString() };
  }

  /**
   * Sends every failed delivery created in [since, until) again, each with a fresh schedule of
   * attempts (the earlier ones kept). A disabled webhook would drop them: it is re-enabled first.
   */
  async recover(auth: AuthContext, id: string, input: RecoverWebhookDto): Promise<RecoveryView> {
    const since = new Date(input.since);
    const until = input.until ? new Date(input.until) : new Date();
    if (input.until && until <= since) throw ValidationError.field('until', 'must be after since');
    const webhook = await this.owned(auth, id);
    if (webhook.status === 'disabled') {
      throw new ConflictError(`Webhook ${webhook.id} is disabled: enable it (PATCH status: enabled) before recovering its deliveries.`);
    }
    const recovered = await this.deliveries.recoverFailed(webhook.id, since, until);
    // Should queueing fail, the deliveries are pending and due: the sweeper sends them.
    await queueNextAttempts(this.queue, recovered, activeTraceContext());
    return { queued: recovered.length };
  }

  async remove(auth: AuthContext, id: string): Promise<void> {
    if (!isId('wh', id) || !(await this.webhooks.delete(auth.userId, id))) {
      throw new ResourceNotFoundError('Webhook', id);
    }
  }

  async listDeliveries(
    auth: AuthContext,
    id: string,
    query: DeliveryListQuery,
    basePath: string,
  ): Promise<Paginated<DeliveryView>> {
    const webhook = await this.owned(auth, id);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const filter = { status: query.status, eventType: query.event_type };
    const [deliveries, total] = await this.deliveries.list(webhook.id, filter, (page - 1) * perPage, perPage);
    const kept = { status: query.status, event_type: query.event_type };
    return new Paginated(deliveries.map(toDeliveryView), { ...offsetMeta(basePath, kept, page, perPage, total) });
  }

  /** The health of the caller's webhooks among `ids` (a page of them), by webhook id, in one query; others' are left out. */
  async health(auth: AuthContext, ids: readonly string[]): Promise<Map<string, WebhookHealthView>> {
    const rows = await this.deliveries.health(auth.userId, ids);
    return new Map(rows.map((row) => [row.webhookId, toWebhookHealthView(row)]));
  }

  async getDelivery(auth: AuthContext, id: string, deliveryId: string): Promise<DeliveryView> {
    return toDeliveryView(await this.ownedDelivery(auth, id, deliveryId));
  }

  /** A delivery with the exact body its attempts send (the signed bytes), which the API's view leaves out. */
  async getDeliveryRequest(auth: AuthContext, id: string, deliveryId: string): Promise<{ delivery: DeliveryView; body: string }> {
    const delivery = await this.ownedDelivery(auth, id, deliveryId);
    return { delivery: toDeliveryView(delivery), body: delivery.body };
  }

  /** The deliveries an event caused to the caller's own webhooks; whether the caller may see the event is for EventsService to say. */
  async listEventDeliveries(auth: AuthContext, eventId: string): Promise<DeliveryView[]> {
    if (!isId('evt', eventId)) return [];
    return (await this.deliveries.listForEvent(auth.userId, eventId)).map(toDeliveryView);
  }

  /** Queues one attempt of a sample event (default: the first kind subscribed); never retried, never disabling. */
  async test(auth: AuthContext, id: string, eventType: EventKind | undefined): Promise<DeliveryView> {
    const webhook = await this.owned(auth, id);
    const event = sampleEvent(eventType ?? webhook.events[0]);
    const delivery = await this.deliveries.insertTest({
      webhookId: webhook.id,
      eventId: event.id,
      eventType: event.type,
      body: JSON.stringify(event),
    });
    return this.enqueue(delivery);
  }

  /** Sends a delivery once more, whatever its status; a failure does not restart the schedule. */
  async retry(auth: AuthContext, id: string, deliveryId: string): Promise<DeliveryView> {
    const webhook = await this.owned(auth, id);
    const found = isId('dlv', deliveryId) ? await this.deliveries.find(webhook.id, deliveryId) : null;
    if (!found) throw new ResourceNotFoundError('Delivery', deliveryId);
    return this.enqueue(await this.deliveries.reopen(found.id));
  }

  private async enqueue(delivery: WebhookDeliveryEntity): Promise<DeliveryView> {
    await queueDeliveryJob(this.queue, deliveryJob(delivery.id, delivery.attempts.length + 1, activeTraceContext()));
    return toDeliveryView(delivery);
  }

  /**
   * Refuses a url whose host is, or resolves to, an address a webhook may not reach. The
   * worker checks again at every connection, since DNS answers change.
   */
  private async assertReachableTarget(url: string): Promise<void> {
    const target = new URL(url);
    // The DTO lets http through only to a loopback host; whether such a receiver is allowed is this setting's call.
    if (target.protocol === 'http:') {
      if (this.config.allowLoopbackHttpWebhookTargets) return;
      throw ValidationError.field('url', LOOPBACK_HTTP_REFUSED);
    }
    if (this.config.allowPrivateWebhookTargets) return;
    switch (await this.targets.check(target.hostname)) {
      case 'public':
        return;
      case 'refused':
        throw ValidationError.field('url', REFUSED_TARGET);
      case 'unanswered':
        throw ValidationError.field('url', UNANSWERED_TARGET);
    }
  }

  /** One of the caller's webhooks; another user's is as unknown as a missing one. */
  private async ownedDelivery(auth: AuthContext, id: string, deliveryId: string): Promise<WebhookDeliveryEntity> {
    const webhook = await this.owned(auth, id);
    const delivery = isId('dlv', deliveryId) ? await this.deliveries.find(webhook.id, deliveryId) : null;
    if (!delivery) throw new ResourceNotFoundError('Delivery', deliveryId);
    return delivery;
  }

  private async owned(auth: AuthContext, id: string): Promise<WebhookEntity> {
    const webhook = isId('wh', id) ? await this.webhooks.findOwned(auth.userId, id) : null;
    if (!webhook) throw new ResourceNotFoundError('Webhook', id);
    return webhook;
  }
}
