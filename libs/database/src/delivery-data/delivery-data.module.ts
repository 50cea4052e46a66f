import { Module } from '@nestjs/common';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookRepository } from './webhook.repository';

/**
 * Webhooks and their deliveries, the data both apps work on: the API's webhooks context
 * registers and lists them, the worker's relay and delivery processor make and send them.
 * One instance per app, so that the delivery reads and records of one turn share a statement.
 */
@Module({
  providers: [WebhookRepository, WebhookDeliveryRepository],
  exports: [WebhookRepository, WebhookDeliveryRepository],
})
export class DeliveryDataModule {}
