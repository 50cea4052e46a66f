import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from '@app/common';
import { ResponseHeaderName, responseHeaders } from './http-headers';

export class FieldProblemView {
  @ApiProperty({ example: 'name' })
  field: string;

  @ApiProperty({ example: 'must be shorter than or equal to 100 characters' })
  message: string;
}

export class ErrorBodyView {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'validation_error' })
  code: ErrorCode;

  @ApiProperty({ example: 'The request has invalid fields.' })
  message: string;

  @ApiPropertyOptional({ type: [FieldProblemView], minItems: 1, maxItems: 100 })
  details?: FieldProblemView[];
}

export class ErrorEnvelopeView {
  @ApiProperty({ type: ErrorBodyView })
  error: ErrorBodyView;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: '`validation_error` (details name every bad field) or `invalid_request`',
  401: '`authentication_required`: missing, expired, malformed or revoked credential',
  403: '`insufficient_permissions`: scope, role or organization does not allow it',
  404: '`resource_not_found`: unknown, deleted or not visible',
  409: '`conflict`, `idempotency_key_in_progress` (see Retry-After) or `idempotency_key_answer_lost`',
  412: '`precondition_failed`: If-Match does not match the ETag',
  413: '`payload_too_large`: body over 1 MiB',
  415: '`unsupported_media_type`: send application/json',
  422: '`idempotency_key_reused`: the key was used for another request',
  429: '`rate_limit_exceeded`: see Retry-After',
  500: '`internal_server_error`: quote the X-Request-ID',
  503: '`service_unavailable`: a dependency is down, or the service is shutting down',
};

/** Documents the error statuses a route can answer, all in the error envelope. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return ApiErrorsWithHeaders([], ...statuses);
}

/** Documents error statuses that also carry headers the route sets before its handler fails. */
export function ApiErrorsWithHeaders(headers: ResponseHeaderName[], ...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeView),
    ...statuses.map((status) =>
      ApiResponse({ status, description: ERROR_DESCRIPTIONS[status] ?? 'Error', type: ErrorEnvelopeView, headers: responseHeaders(...headers) }),
    ),
  );
}

/** A view class, or the name of a schema the document builder adds itself (the events'). */
export type ModelReference = Type<unknown> | string;

function schemaRef(model: ModelReference): { $ref: string } {
  return { $ref: getSchemaPath(model) };
}

/** Registers the view classes among `models` as schemas; names refer to schemas added otherwise. */
function extraModels(...models: ModelReference[]): MethodDecorator {
  return ApiExtraModels(...models.filter((model): model is Type<unknown> => typeof model !== 'string'));
}

/** Documents a `{ data: <model> }` success body, and the headers the route sends with it. */
export function ApiDataResponse(model: ModelReference, status = 200, description = 'Success', headers: ResponseHeaderName[] = []): MethodDecorator {
  return applyDecorators(
    extraModels(model),
    ApiResponse({
      status,
      description,
      headers: responseHeaders(...headers),
      schema: { type: 'object', required: ['data'], properties: { data: schemaRef(model) } },
    }),
  );
}

/**
 * Documents a `{ data: [<model>], meta }` list body whose meta is the named view, or one of
 * several (a list answering either offset or cursor pages).
 */
export function ApiListResponse(
  model: ModelReference,
  meta: Type<unknown> | Type<unknown>[],
  status = 200,
  description = 'A page of records',
): MethodDecorator {
  const metas = Array.isArray(meta) ? meta : [meta];
  return applyDecorators(
    extraModels(model, ...metas),
    ApiResponse({
      status,
      description,
      schema: {
        type: 'object',
        required: ['data', 'meta'],
        properties: {
          data: { type: 'array', items: schemaRef(model) },
          meta: metas.length === 1 ? schemaRef(metas[0]) : { oneOf: metas.map(schemaRef) },
        },
      },
    }),
  );
}
