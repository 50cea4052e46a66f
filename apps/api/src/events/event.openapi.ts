import type { Type } from '@nestjs/common';
import { getSchemaPath, ParameterObject } from '@nestjs/swagger';
import { EVENT_KINDS, EventKind, idPattern } from '@app/common';
import { ResourceView } from '../resources/resource.view';
import { UserView } from '../users/user.view';
import { ResourceChangesView, UserChangesView } from './event-changes.view';
import { PaymentView } from './payment.view';

/**
 * The events as a contract: one schema per kind, with `data.object` and `previous_data` typed,
 * shared by `GET /events` (the `Event` union) and by the document's top-level `webhooks`, one
 * POST per kind with the signature headers of both schemes (docs/api.md#webhook-delivery).
 */

/** The union of every kind's schema, discriminated by `type`. */
export const EVENT_SCHEMA = 'Event';

type JsonObject = Record<string, unknown>;

interface EventContent {
  meaning: string;
  object: Type<unknown>;
  /** The schema of `previous_data`, or null when it is always null. */
  previous: Type<unknown> | null;
  previousMeaning: string;
}

const EXAMPLE_TIME = '2025-11-21T09:30:00.000Z';
const EXAMPLE_RESOURCE = {
  id: 'res_01JD3Q0F6K8W2M4N6P8R0T2V4X',
  name: 'Primary database',
  description: 'Orders and invoices',
  type: 'standard',
  status: 'active',
  metadata: { region: 'eu-west-1', replicas: 3 },
  tags: ['production'],
  owner_id: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X',
  organization_id: null,
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
  deleted_at: null,
};
const EXAMPLE_USER = {
  id: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X',
  email: 'ada@example.com',
  username: 'ada_l',
  role: 'user',
  plan: 'free',
  profile: { first_name: 'Ada', last_name: 'Lovelace', avatar_url: null },
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};
const EXAMPLE_PAYMENT = {
  id: 'pay_01JD3Q0F6K8W2M4N6P8R0T2V4X',
  object: 'payment',
  amount: 4900,
  currency: 'usd',
  status: 'succeeded',
  failure_reason: null,
  customer_id: 'usr_01JD3Q0F6K8W2M4N6P8R0T2V4X',
  created_at: EXAMPLE_TIME,
};

const EVENT_CONTENTS: Record<EventKind, EventContent & { example: { object: object; previous: object | null } }> = {
  'resource.created': {
    meaning: 'A resource was created (one event per resource of a bulk create).',
    object: ResourceView,
    previous: null,
    previousMeaning: 'Always null.',
    example: { object: EXAMPLE_RESOURCE, previous: null },
  },
  'resource.updated': {
    meaning: 'A resource was changed by PUT, PATCH or a bulk update, or moved between organizations.',
    object: ResourceView,
    previous: ResourceChangesView,
    previousMeaning: 'The prior values of the fields that changed.',
    example: { object: { ...EXAMPLE_RESOURCE, status: 'archived' }, previous: { status: 'active' } },
  },
  'resource.deleted': {
    meaning: 'A resource was deleted (soft, or hard when it was live); `data.object` is the record as deleted.',
    object: ResourceView,
    previous: null,
    previousMeaning: 'Always null.',
    example: { object: { ...EXAMPLE_RESOURCE, deleted_at: EXAMPLE_TIME }, previous: null },
  },
  'user.created': {
    meaning: 'A user registered (or was made with the command-line tool).',
    object: UserView,
    previous: null,
    previousMeaning: 'Always null.',
    example: { object: EXAMPLE_USER, previous: null },
  },
  'user.updated': {
    meaning: "A user's profile, role or plan changed.",
    object: UserView,
    previous: UserChangesView,
    previousMeaning: 'The prior values of what changed: `role`, `plan`, or the changed `profile` fields.',
    example: { object: EXAMPLE_USER, previous: { profile: { first_name: null } } },
  },
  'payment.succeeded': {
    meaning: 'A payment completed. Nothing in the service emits it yet; webhooks may subscribe and test it.',
    object: PaymentView,
    previous: null,
    previousMeaning: 'Always null.',
    example: { object: EXAMPLE_PAYMENT, previous: null },
  },
  'payment.failed': {
    meaning: 'A payment failed. Nothing in the service emits it yet; webhooks may subscribe and test it.',
    object: PaymentView,
    previous: null,
    previousMeaning: 'Always null.',
    example: { object: { ...EXAMPLE_PAYMENT, status: 'failed', failure_reason: 'card_declined' }, previous: null },
  },
};

/** The view classes the event schemas refer to, for the document builder to register. */
export const EVENT_MODELS: Type<unknown>[] = [...new Set(Object.values(EVENT_CONTENTS).flatMap(({ object, previous }) => (previous ? [object, previous] : [object])))];

/** `resource.created` -> `ResourceCreated`. */
function pascalCase(kind: EventKind): string {
  return kind
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

function eventSchemaName(kind: EventKind): string {
  return `${pascalCase(kind)}Event`;
}

function eventSchemaRef(kind: EventKind): string {
  return `#/components/schemas/${eventSchemaName(kind)}`;
}

function exampleEvent(kind: EventKind): JsonObject {
  const { example } = EVENT_CONTENTS[kind];
  return { id: 'evt_01JD3Q0F6K8W2M4N6P8R0T2V4X', type: kind, created_at: EXAMPLE_TIME, data: { object: example.object }, previous_data: example.previous };
}

function eventSchema(kind: EventKind): JsonObject {
  const content = EVENT_CONTENTS[kind];
  return {
    type: 'object',
    description: content.meaning,
    required: ['id', 'type', 'created_at', 'data', 'previous_data'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: idPattern('evt'), description: 'Unique per event: deliveries may repeat, dedupe on it.' },
      type: { type: 'string', const: kind },
      created_at: { type: 'string', format: 'date-time' },
      data: {
        type: 'object',
        required: ['object'],
        additionalProperties: false,
        properties: { object: { $ref: getSchemaPath(content.object) } },
      },
      previous_data: content.previous
        ? { description: content.previousMeaning, $ref: getSchemaPath(content.previous) }
        : { description: content.previousMeaning, type: 'null' },
    },
    example: exampleEvent(kind),
  };
}

/** One schema per kind, and their union `Event`, for `components.schemas`. */
export function eventSchemas(): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = Object.fromEntries(EVENT_KINDS.map((kind) => [eventSchemaName(kind), eventSchema(kind)]));
  schemas[EVENT_SCHEMA] = {
    description: 'An event of any kind; `type` tells which.',
    oneOf: EVENT_KINDS.map((kind) => ({ $ref: eventSchemaRef(kind) })),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(EVENT_KINDS.map((kind) => [kind, eventSchemaRef(kind)])) },
  };
  return schemas;
}

/** The headers of every delivery, for `components.parameters`; the worker's `signatureHeaders` sends them. */
export const DELIVERY_HEADER_PARAMETERS = {
  'X-Webhook-Signature': {
    name: 'X-Webhook-Signature',
    in: 'header',
    required: true,
    description:
      "Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the secret's UTF-8 bytes. Compare it in constant " +
      'time against the raw body, not against re-serialized JSON.',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  'X-Webhook-Event-Id': {
    name: 'X-Webhook-Event-Id',
    in: 'header',
    required: true,
    description: 'The event `id`.',
    schema: { type: 'string', pattern: idPattern('evt') },
  },
  'webhook-id': {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the event `id`.',
    schema: { type: 'string', pattern: idPattern('evt') },
  },
  'webhook-timestamp': {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: when this attempt was signed, in Unix seconds; refuse old ones to stop replays.',
    schema: { type: 'string', pattern: '^[0-9]+$', example: '1764067200' },
  },
  'webhook-signature': {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with ' +
      "the secret's base64 part decoded for a `whsec_` secret, otherwise with its UTF-8 bytes; a Standard Webhooks " +
      'library verifies it as is.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=$' },
  },
} satisfies Record<string, ParameterObject>;

const DELIVERY_DESCRIPTION =
  'A POST of the event as JSON to the webhook `url` (https), signed two ways: `X-Webhook-Signature` over the body, ' +
  'and the Standard Webhooks `webhook-signature` over id, timestamp and body. Answer with any 2xx within 5 seconds. ' +
  'Anything else, redirects included, is a failure: the delivery is tried at once and after 1 minute, 5 minutes, ' +
  '30 minutes and 2 hours, each counted from the previous failure, and the fifth failure disables the webhook. ' +
  'Deliveries may repeat (dedupe on `id`) and arrive in any order.';

function deliveryOperation(kind: EventKind): JsonObject {
  return {
    post: {
      operationId: `receive${pascalCase(kind)}Event`,
      summary: `${kind}: ${EVENT_CONTENTS[kind].meaning.split(/[(;]/)[0].trim().replace(/\.$/, '')}`,
      description: `${EVENT_CONTENTS[kind].meaning} ${DELIVERY_DESCRIPTION}`,
      tags: ['Webhooks'],
      security: [],
      parameters: [
        ...['X-Webhook-Signature', 'X-Webhook-Event-Id'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
        {
          name: 'X-Webhook-Event-Type',
          in: 'header',
          required: true,
          description: 'The event `type`.',
          schema: { type: 'string', const: kind },
        },
        ...['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: eventSchemaRef(kind) }, example: exampleEvent(kind) } },
      },
      responses: {
        '200': { description: 'Received: any 2xx status within 5 seconds acknowledges the delivery.' },
        '410': { description: 'Gone: the webhook is disabled at once, without further attempts.' },
        default: { description: 'Any other status, or no answer within 5 seconds: the attempt failed and is retried.' },
      },
    },
  };
}

/** The top-level `webhooks` of the document: one entry per event kind. */
export function eventWebhooks(): Record<string, JsonObject> {
  return Object.fromEntries(EVENT_KINDS.map((kind) => [kind, deliveryOperation(kind)]));
}
