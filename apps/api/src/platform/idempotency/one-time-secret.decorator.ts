import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const ONE_TIME_SECRET_FIELDS = 'rms:oneTimeSecretFields';

/** OpenAPI marker of the fields; the document builder turns it into the `Idempotent-Secret-Omitted` header. */
export const ONE_TIME_SECRETS_OPERATION = 'x-one-time-secrets';

/**
 * Names the fields of the answer's `data` that are shown once (an API key's `key`, a webhook's
 * or an OAuth client's secret). An idempotent replay never stores them: it answers the record
 * without them and says so in `Idempotent-Secret-Omitted`.
 */
export const OneTimeSecrets = (...fields: string[]): MethodDecorator =>
  applyDecorators(SetMetadata(ONE_TIME_SECRET_FIELDS, fields), ApiExtension(ONE_TIME_SECRETS_OPERATION, fields));

/** The JSON body without the named `data` fields, and the names that were actually removed. */
export function withoutOneTimeSecrets(body: string, fields: readonly string[]): { body: string; omitted: string[] } {
  if (fields.length === 0) return { body, omitted: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { body, omitted: [] };
  }
  const data = (parsed as { data?: unknown }).data;
  if (typeof data !== 'object' || data === null) return { body, omitted: [] };
  const record = data as Record<string, unknown>;
  const omitted = fields.filter((field) => field in record);
  for (const field of omitted) delete record[field];
  return { body: JSON.stringify(parsed), omitted };
}
