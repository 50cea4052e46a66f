import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuthContext, Paginated } from '@app/common';
import { Auth } from '../common/decorators/auth.decorator';
import { ScopeArea } from '../common/decorators/scope.decorator';
import { OneTimeSecrets } from '../common/idempotency/one-time-secret.decorator';
import { ApiDataResponse, ApiErrors, ApiListResponse } from '../common/openapi/api-responses';
import { OffsetPageQuery } from '../common/pagination/offset-page.query';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { TestAnyWebhookDto, TestWebhookDto } from './dto/test-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { CreatedWebhookView, DeliveryView, WebhookView } from './webhook.view';
import { WebhooksService } from './webhooks.service';

@ApiTags('Webhooks')
@ApiBearerAuth()
@ScopeArea('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @OneTimeSecrets('secret')
  @ApiOperation({
    summary: 'Create a webhook',
    description: 'The url must be https. The secret (given, or generated as `whsec_...`) is returned only here.',
  })
  @ApiDataResponse(CreatedWebhookView, 201, 'The new webhook, with its secret')
  @ApiErrors(400, 401, 403, 429)
  create(@Auth() auth: AuthContext, @Body() body: CreateWebhookDto): Promise<CreatedWebhookView> {
    return this.webhooks.create(auth, body);
  }

  @Post('test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Trigger a test delivery (webhook id in the body)',
    description: 'Queues one attempt of a sample event; never retried, never disables the webhook.',
  })
  @ApiDataResponse(DeliveryView, 202, 'The queued test delivery')
  @ApiErrors(400, 401, 403, 404, 429)
  testAny(@Auth() auth: AuthContext, @Body() body: TestAnyWebhookDto): Promise<DeliveryView> {
    return this.webhooks.test(auth, body.webhook_id, body.event_type);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Trigger a test delivery',
    description: 'Queues one attempt of a sample event (default: the first subscribed kind); never retried, never disables the webhook.',
  })
  @ApiDataResponse(DeliveryView, 202, 'The queued test delivery')
  @ApiErrors(400, 401, 403, 404, 429)
  test(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: TestWebhookDto): Promise<DeliveryView> {
    return this.webhooks.test(auth, id, body.event_type);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a delivery again', description: 'Queues one more attempt.' })
  @ApiDataResponse(DeliveryView, 202, 'The delivery, pending again')
  @ApiErrors(401, 403, 404, 429)
  retry(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<DeliveryView> {
    return this.webhooks.retry(auth, id, deliveryId);
  }

  @Get()
  @ApiOperation({ summary: "List the caller's webhooks" })
  @ApiListResponse(WebhookView)
  @ApiErrors(400, 401, 403, 429)
  list(@Auth() auth: AuthContext, @Query() query: OffsetPageQuery, @Req() req: Request): Promise<Paginated<WebhookView>> {
    return this.webhooks.list(auth, query, req.path);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a webhook' })
  @ApiDataResponse(WebhookView)
  @ApiErrors(401, 403, 404, 429)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WebhookView> {
    return this.webhooks.get(auth, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update a webhook', description: '`status: enabled` re-enables a disabled webhook.' })
  @ApiDataResponse(WebhookView)
  @ApiErrors(400, 401, 403, 404, 429)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: UpdateWebhookDto): Promise<WebhookView> {
    return this.webhooks.update(auth, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Done; no body' })
  @ApiOperation({ summary: 'Delete a webhook', description: 'Its deliveries are deleted with it.' })
  @ApiErrors(401, 403, 404, 429)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    return this.webhooks.remove(auth, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "List a webhook's deliveries", description: 'Newest first, with every attempt.' })
  @ApiListResponse(DeliveryView)
  @ApiErrors(400, 401, 403, 404, 429)
  listDeliveries(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: OffsetPageQuery,
    @Req() req: Request,
  ): Promise<Paginated<DeliveryView>> {
    return this.webhooks.listDeliveries(auth, id, query, req.path);
  }

  @Get(':id/deliveries/:deliveryId')
  @ApiOperation({ summary: 'Get a delivery' })
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
