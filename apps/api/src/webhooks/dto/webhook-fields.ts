import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional, IsString, isURL, Length, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { EVENT_KINDS, isLoopbackHttpUrl } from '@app/common';

/** The longest name DNS can carry (RFC 1035 §2.3.4, less the root's dot). */
const MAX_HOSTNAME_LENGTH = 253;

/**
 * An https URI as the OpenAPI document promises (`format: uri`: ASCII, so an international name
 * goes as punycode) that validator.js and Node's URL parser both read: validator.js accepts
 * hosts Node cannot parse (an IPv6 zone id, `[fe80::1%25eth0]`), which the service and the
 * worker would then fail on. A longer name than DNS carries could never be delivered to. An
 * http URI passes only to a loopback host, which the service then takes or refuses by its setting.
 */
function isWebhookUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[\x21-\x7e]+$/.test(value)) return false;
  if (!isURL(value, { protocols: ['https', 'http'], require_protocol: true, require_tld: false, require_valid_protocol: true })) return false;
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || isLoopbackHttpUrl(url)) && url.hostname.length <= MAX_HOSTNAME_LENGTH;
}

/** Checks a field only when it is sent: omitted keeps the value, and `null` is refused, since none of these can be cleared. */
export const WhenSent = (): PropertyDecorator => ValidateIf((_dto, value: unknown) => value !== undefined);

/** `url`: https, or http to a loopback host where allowed (docs/api.md#webhook-urls); private addresses are refused by the service. */
export function WebhookUrlField(required: boolean): PropertyDecorator {
  const doc = {
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    description:
      'An https URL whose host resolves to public addresses only (no loopback, private, link-local or reserved one). ' +
      'A service run for local development (WEBHOOK_ALLOW_LOOPBACK_HTTP) also takes http:// to a loopback host.',
    example: 'https://example.com/webhooks/rms',
  };
  return applyDecorators(
    required ? ApiProperty(doc) : ApiPropertyOptional(doc),
    ...(required ? [] : [WhenSent()]),
    IsString({ message: 'must be a string' }),
    MaxLength(2048, { message: 'must be at most 2048 characters' }),
    ValidateBy(
      { name: 'isWebhookUrl', validator: { validate: isWebhookUrl } },
      { message: 'must be an https:// URL, in ASCII (punycode for an international host name)' },
    ),
  );
}

/** `events`: a non-empty set of known event kinds. */
export function WebhookEventsField(required: boolean): PropertyDecorator {
  const doc = { enum: [...EVENT_KINDS], isArray: true, minItems: 1, uniqueItems: true, example: ['resource.created'] };
  return applyDecorators(
    required ? ApiProperty(doc) : ApiPropertyOptional(doc),
    ...(required ? [] : [WhenSent()]),
    IsArray({ message: 'must be an array of event kinds' }),
    ArrayNotEmpty({ message: 'must name at least one event kind' }),
    ArrayUnique({ message: 'must not repeat an event kind' }),
    IsIn(EVENT_KINDS, { each: true, message: `must contain only known event kinds: ${EVENT_KINDS.join(', ')}` }),
  );
}

/** `secret`: write-only, at least 16 characters. */
export function WebhookSecretField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      minLength: 16,
      maxLength: 256,
      writeOnly: true,
      description: 'Signing secret; generated as `whsec_...` when omitted and returned once.',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
    WhenSent(),
    IsString({ message: 'must be a string' }),
    Length(16, 256, { message: 'must be 16-256 characters' }),
  );
}

/** `description`: optional free text, null clears it. */
export function WebhookDescriptionField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, description: 'Free text for you; null clears it.', example: 'Orders service, production' }),
    IsOptional(),
    IsString({ message: 'must be a string' }),
    MaxLength(500, { message: 'must be at most 500 characters' }),
  );
}
