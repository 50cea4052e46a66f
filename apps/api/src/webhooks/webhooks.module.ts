import { Module } from '@nestjs/common';
import { QueueModule } from '@app/queue';
import { WebhookTargetResolver } from './webhook-target-resolver';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhook registrations and their deliveries. */
@Module({
  imports: [QueueModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookTargetResolver],
  exports: [WebhooksService],
})
export class WebhooksModule {}
