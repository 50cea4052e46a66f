import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from '@app/common';

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

  @ApiPropertyOptional({ type: [FieldProblemView] })
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
  405: '`method_not_allowed`: see the Allow header',
  409: '`conflict` or `idempotency_key_in_progress`',
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
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeView),
    ...statuses.map((status) =>
      ApiResponse({ status, description: ERROR_DESCRIPTIONS[status] ?? 'Error', type: ErrorEnvelopeView }),
    ),
  );
}

/** Documents a `{ data: <model> }` success body. */
export function ApiDataResponse(model: Type<unknown>, status = 200, description = 'Success'): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status,
      description,
      schema: { type: 'object', required: ['data'], properties: { data: { $ref: getSchemaPath(model) } } },
    }),
  );
}

/** Documents a `{ data: [<model>], meta }` list body. */
export function ApiListResponse(model: Type<unknown>, description = 'A page of records'): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: 200,
      description,
      schema: {
        type: 'object',
        required: ['data', 'meta'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          meta: { type: 'object', additionalProperties: true },
        },
      },
    }),
  );
}
