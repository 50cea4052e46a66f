import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthContext, idPattern, Paginated } from '@app/common';
import { Auth } from '../platform/decorators/auth.decorator';
import { ScopeArea } from '../platform/decorators/scope.decorator';
import { OneTimeSecrets } from '../platform/idempotency/one-time-secret.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../platform/openapi/api-responses';
import { ApiTag } from '../platform/openapi/api-tags';
import { OffsetPageMetaView } from '../platform/pagination/page-meta.view';
import { OffsetPageQuery } from '../platform/pagination/offset-page.query';
import { ValidBody, ValidQuery } from '../platform/validation/validated-parameters';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { DeliveryListQuery } from './dto/delivery-list.query';
import { RecoverWebhookDto } from './dto/recover-webhook.dto';
import { RotateWebhookSecretDto } from './dto/rotate-webhook-secret.dto';
import { TestAnyWebhookDto, TestWebhookDto } from './dto/test-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { CreatedWebhookView, DeliveryView, RecoveryView, RotatedSecretView, WebhookView } from './webhook.view';
import { WebhooksService } from './webhooks.service';

const WEBHOOK_ID = ApiParam({
  name: 'id',
  description: 'One of your webhooks (`wh_`); any other is 404.',
  schema: { type: 'string', pattern: idPattern('wh'), example: 'wh_01JD3Q0F6K8W2M4N6P8R0T2V4X' },
});
const DELIVERY_ID = ApiParam({
  name: 'deliveryId',
  description: 'A delivery of that webhook (`dlv_`).',
  schema: { type: 'string', pattern: idPattern('dlv'), example: 'dlv_01JD3Q0F6K8W2M4N6P8R0T2V4X' },
});

@ApiTag('Webhooks')
@ApiBearerAuth()
@ScopeArea('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @OneTimeSecrets('secret')
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    description:
      'The url must be https, and its host must resolve to public addresses only (unless the service is configured ' +
      'for local development). The secret (given, or generated as `whsec_...`) is returned only here. Deliveries are ' +
      'described, kind by kind, in the `webhooks` section of this document.',
  })
  @ApiDataResponse(CreatedWebhookView, 201, 'The new webhook, with its secret')
  @ApiErrors(400, 401, 403, 429)
  create(@Auth() auth: AuthContext, @ValidBody() body: CreateWebhookDto): Promise<CreatedWebhookView> {
    return this.webhooks.create(auth, body);
  }

  @Post('test')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'testWebhookFromBody',
    summary: 'Trigger a test delivery (webhook id in the body)',
    description: 'Queues one attempt of a sample event; never retried, never disables the webhook.',
  })
  @ApiDataResponse(DeliveryView, 202, 'The queued test delivery')
  @ApiErrors(400, 401, 403, 404, 429)
  testAny(@Auth() auth: AuthContext, @ValidBody() body: TestAnyWebhookDto): Promise<DeliveryView> {
    return this.webhooks.test(auth, body.webhook_id, body.event_type);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'testWebhook',
    summary: 'Trigger a test delivery',
    description: 'Queues one attempt of a sample event (default: the first subscribed kind); never retried, never disables the webhook.',
  })
  @WEBHOOK_ID
  @ApiDataResponse(DeliveryView, 202, 'The queued test delivery')
  @ApiErrors(400, 401, 403, 404, 429)
  test(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: TestWebhookDto): Promise<DeliveryView> {
    return this.webhooks.test(auth, id, body.event_type);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again',
    description: 'Queues one more attempt, whatever the status of the delivery; a failure does not restart the schedule.',
  })
  @WEBHOOK_ID
  @DELIVERY_ID
  @ApiDataResponse(DeliveryView, 202, 'The delivery, pending again')
  @ApiErrors(401, 403, 404, 429)
  retry(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<DeliveryView> {
    return this.webhooks.retry(auth, id, deliveryId);
  }

  @Post(':id/secret/rotate')
  @HttpCode(200)
  @OneTimeSecrets('secret')
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook's signing secret",
    description:
      'Makes `secret` (given, at least 16 characters, or generated as `whsec_...`) the signing secret, shown only in ' +
      'this response. Until `previous_secret_expires_at` (now + `expires_in` seconds, default 86400) every delivery is ' +
      'signed with both: `webhook-signature: v1,<new> v1,<previous>`, `X-Webhook-Signature` with the new secret and ' +
      '`X-Webhook-Signature-Previous` with the previous one; after it, with the new secret alone. A receiver that accepts ' +
      'either switches without a failed delivery. Rotating again during an overlap drops the oldest secret.',
  })
  @WEBHOOK_ID
  @ApiDataResponse(RotatedSecretView, 200, 'The new secret, once, and when the previous one stops signing')
  @ApiErrors(400, 401, 403, 404, 429)
  rotateSecret(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: RotateWebhookSecretDto): Promise<RotatedSecretView> {
    return this.webhooks.rotateSecret(auth, id, body);
  }

  @Post(':id/recover')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'recoverWebhookDeliveries',
    summary: 'Send failed deliveries again',
    description:
      'Every `failed` delivery of the webhook created at or after `since` (at most 14 days back) and before `until` ' +
      '(default now) goes back to `pending` with a fresh schedule of attempts; its earlier attempts stay in `attempts`. ' +
      'Test deliveries are not included. A disabled webhook is 409 `conflict`: enable it first. While the webhook is ' +
      'paused the recovered deliveries are held with the others.',
  })
  @WEBHOOK_ID
  @ApiDataResponse(RecoveryView, 202, 'How many deliveries were queued again')
  @ApiErrors(400, 401, 403, 404, 409, 429)
  recover(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: RecoverWebhookDto): Promise<RecoveryView> {
    return this.webhooks.recover(auth, id, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhooks', summary: "List the caller's webhooks", description: 'Oldest first; secrets are never shown.' })
  @ApiListResponse(WebhookView, OffsetPageMetaView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @ValidQuery() query: OffsetPageQuery, @Req() req: Request): Promise<Paginated<WebhookView>> {
    return this.webhooks.list(auth, query, req.path);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getWebhook', summary: 'Get a webhook', description: 'The secret is never shown again.' })
  @WEBHOOK_ID
  @ApiDataResponse(WebhookView)
  @ApiErrors(401, 403, 404, 429)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WebhookView> {
    return this.webhooks.get(auth, id);
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Update a webhook',
    description:
      'Sets any of the fields sent. `status: paused` holds deliveries (made, `pending` with `next_attempt_at: null`, not ' +
      'sent; a paused webhook is never disabled); `status: enabled` re-enables a disabled webhook and sends every held ' +
      'delivery, oldest first. A new url is checked as on create.',
  })
  @WEBHOOK_ID
  @ApiDataResponse(WebhookView)
  @ApiErrors(400, 401, 403, 404, 429)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @ValidBody() body: UpdateWebhookDto): Promise<WebhookView> {
    return this.webhooks.update(auth, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted; no body' })
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook', description: 'Its deliveries are deleted with it.' })
  @WEBHOOK_ID
  @ApiErrors(401, 403, 404, 429)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    return this.webhooks.remove(auth, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook's deliveries",
    description: 'Newest first, with every attempt; `status` and `event_type` narrow the list, and the page links keep them.',
  })
  @WEBHOOK_ID
  @ApiListResponse(DeliveryView, OffsetPageMetaView)
  @ApiErrors(400, 401, 403, 404, 429)
  listDeliveries(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @ValidQuery() query: DeliveryListQuery,
    @Req() req: Request,
  ): Promise<Paginated<DeliveryView>> {
    return this.webhooks.listDeliveries(auth, id, query, req.path);
  }

  @Get(':id/deliveries/:deliveryId')
  @ApiOperation({ operationId: 'getWebhookDelivery', summary: 'Get a delivery', description: 'With every attempt: when, the status code, how long it took, the error and the start of the answer.' })
  @WEBHOOK_ID
  @DELIVERY_ID
  @ApiDataResponse(DeliveryView)
  @ApiErrors(401, 403, 404, 429)
  getDelivery(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<DeliveryView> {
    return this.webhooks.getDelivery(auth, id, deliveryId);
  }
}
