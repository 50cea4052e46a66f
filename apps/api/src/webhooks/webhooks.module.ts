import { Module } from '@nestjs/common';
import { WebhookHostResolver } from '@app/common';
import { AppConfig } from '@app/config';
import { DeliveryDataModule } from '@app/database/delivery-data/delivery-data.module';
import { QueueModule } from '@app/queue';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Host checks of webhook urls in flight at once in one API process; more wait for one to end, within their deadline. */
export const CONCURRENT_TARGET_CHECKS = 8;

/** Webhook registrations and their deliveries. */
@Module({
  imports: [QueueModule, DeliveryDataModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    {
      provide: WebhookHostResolver,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new WebhookHostResolver({ servers: config.webhookDnsServers, concurrency: CONCURRENT_TARGET_CHECKS }),
    },
  ],
  exports: [WebhooksService],
})
export class WebhooksModule {}
