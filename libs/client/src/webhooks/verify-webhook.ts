import type { WebhookEvent } from '../api-types';
import { RmsError } from '../errors';
import { isRecord, parseJson } from '../json-shapes';
import { utf8 } from './bytes';
import { HeaderReader, hexSignature, SignatureFailure, SignatureScheme, standardWebhooksSignature } from './signature-schemes';

export type WebhookSignatureScheme = 'standard-webhooks' | 'x-webhook-signature';
export type WebhookVerificationFailure = SignatureFailure | 'missing_signature' | 'invalid_payload';

/** A delivery that cannot be trusted; answer it 401 (and 400 for `invalid_payload`). */
export class WebhookVerificationError extends RmsError {
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Fetch's Headers, or Node's `req.headers` (names in lower case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * The schemes checked (both by default): every one of them whose headers the delivery carries
   * must verify. The Standard Webhooks signature must be among them unless `allowLegacyHexOnly`.
   */
  schemes?: readonly WebhookSignatureScheme[];
  /**
   * Accepts a delivery verified on `X-Webhook-Signature` alone. That signature covers neither a
   * time nor an id, so a recorded delivery played back at any later time verifies too; the
   * service always sends the Standard Webhooks headers, and only a receiver behind something
   * that drops them needs this. False by default.
   */
  allowLegacyHexOnly?: boolean;
  /** How far `webhook-timestamp` may be from now, in seconds; 300 by default. */
  toleranceSeconds?: number;
}

const SCHEMES: Record<WebhookSignatureScheme, SignatureScheme> = {
  'standard-webhooks': standardWebhooksSignature,
  'x-webhook-signature': hexSignature,
};
const DEFAULT_TOLERANCE_SECONDS = 300;

function isFetchHeaders(headers: WebhookHeaders): headers is Headers {
  // By shape, not instanceof: Headers may come from another realm or another fetch implementation.
  return typeof headers.get === 'function';
}

function headerReader(headers: WebhookHeaders): HeaderReader {
  if (isFetchHeaders(headers)) return (name) => headers.get(name) ?? undefined;
  const lowerCased = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => {
    const value = lowerCased.get(name);
    return Array.isArray(value) ? value[0] : value;
  };
}

/** The signature vouches that the service wrote the body; this only refuses one that is no event at all. */
function isWebhookEvent(value: unknown): value is WebhookEvent {
  return isRecord(value) && typeof value.id === 'string' && typeof value.type === 'string' && isRecord(value.data);
}

/**
 * Checks a delivery's signatures against the webhook's secret and returns its event. `rawBody`
 * must be the bytes received, before any JSON parsing: a re-serialized body does not verify.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const header = headerReader(headers);
  const body = typeof rawBody === 'string' ? utf8(rawBody) : rawBody;
  const accepted = options.schemes ?? (Object.keys(SCHEMES) as WebhookSignatureScheme[]);
  const present = accepted.filter((name) => SCHEMES[name].presentIn(header));
  if (present.length === 0) {
    throw new WebhookVerificationError('missing_signature', `The delivery carries no signature of ${accepted.join(' or ')}.`);
  }
  // Stripping the timestamped headers must not leave a replayable signature to fall back on.
  if (!present.includes('standard-webhooks') && options.allowLegacyHexOnly !== true) {
    throw new WebhookVerificationError(
      'missing_signature',
      'The delivery carries no Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature), which every delivery is sent with; ' +
        'X-Webhook-Signature alone cannot tell a replay from a delivery and is accepted only with allowLegacyHexOnly: true.',
    );
  }
  for (const name of present) {
    const failure = await SCHEMES[name].check(body, header, secret, options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
    if (failure) throw new WebhookVerificationError(failure, `The ${name} signature was refused: ${failure}.`);
  }
  const event = parseJson(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  if (!isWebhookEvent(event)) throw new WebhookVerificationError('invalid_payload', 'The signed body is not an event.');
  return event;
}

/**
 * `verifyWebhook` with each of several secrets in turn, for a receiver that holds the new and the
 * previous secret while it switches after a rotation: the event of the first that verifies, or
 * the refusal of the last.
 */
export async function verifyWebhookWithAnySecret(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  let refusal = new WebhookVerificationError('missing_signature', 'No secret was given to verify the delivery with.');
  for (const secret of secrets) {
    try {
      return await verifyWebhook(rawBody, headers, secret, options);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      refusal = error;
    }
  }
  throw refusal;
}
