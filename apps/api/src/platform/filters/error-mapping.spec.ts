import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  ImATeapotException,
  InternalServerErrorException,
  MethodNotAllowedException,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { AppError, ResourceNotFoundError, ValidationError } from '@app/common';
import { toAppError } from './error-mapping';

/** An error shaped as body-parser makes them (through http-errors). */
function bodyParserError(type: string, status: number, message = 'body-parser says no', expose = status < 500): Error {
  return Object.assign(new Error(message), { type, status, statusCode: status, expose });
}

describe('toAppError', () => {
  it('returns our own errors unchanged', () => {
    const validation = ValidationError.field('name', 'is required');
    const notFound = new ResourceNotFoundError('Resource', 'res_x');
    expect(toAppError(validation)).toBe(validation);
    expect(toAppError(notFound)).toBe(notFound);
  });

  describe('body-parser errors (docs/api.md#request-bodies)', () => {
    it.each([
      ['entity.parse.failed', 400, 'invalid_request', 400],
      ['entity.too.large', 413, 'payload_too_large', 413],
      ['parameters.too.many', 413, 'payload_too_large', 413],
      ['encoding.unsupported', 415, 'unsupported_media_type', 415],
      ['charset.unsupported', 415, 'unsupported_media_type', 415],
      ['request.aborted', 400, 'invalid_request', 400],
      ['request.size.invalid', 400, 'invalid_request', 400],
    ])('maps %s (%i) to %s', (type, status, code, httpStatus) => {
      const error = toAppError(bodyParserError(type, status));
      expect(error).toBeInstanceOf(AppError);
      expect(error?.code).toBe(code);
      expect(error?.status).toBe(httpStatus);
    });

    it('says the JSON is invalid without echoing the parser message', () => {
      const error = toAppError(bodyParserError('entity.parse.failed', 400, 'Unexpected token } in JSON at position 7'));
      expect(error?.message).toBe('The request body is not valid JSON.');
    });

    it('says the limit on a body that is too large', () => {
      expect(toAppError(bodyParserError('entity.too.large', 413))?.message).toMatch(/1 MiB/);
    });

    it('maps an unknown exposed client error by its status', () => {
      expect(toAppError(bodyParserError('entity.verify.failed', 403))?.code).toBe('insufficient_permissions');
    });

    it('treats an unexposed body-parser error as a server failure', () => {
      expect(toAppError(bodyParserError('stream.encoding.set', 500, 'stream encoding should not be set', false))).toBeNull();
    });
  });

  describe("Nest's HttpExceptions", () => {
    it.each([
      [new BadRequestException(), 'invalid_request', 400],
      [new UnauthorizedException(), 'authentication_required', 401],
      [new ForbiddenException(), 'insufficient_permissions', 403],
      [new MethodNotAllowedException(), 'method_not_allowed', 405],
      [new ConflictException(), 'conflict', 409],
      [new PayloadTooLargeException(), 'payload_too_large', 413],
      [new UnsupportedMediaTypeException(), 'unsupported_media_type', 415],
      [new HttpException('Too Many Requests', 429), 'rate_limit_exceeded', 429],
      [new ServiceUnavailableException(), 'service_unavailable', 503],
    ])('maps %p to %s', (exception, code, status) => {
      const error = toAppError(exception);
      expect(error?.code).toBe(code);
      expect(error?.status).toBe(status);
    });

    it("turns Nest's route 404 into not_found with our message", () => {
      const error = toAppError(new NotFoundException('Cannot GET /v2/nope'));
      expect(error?.code).toBe('not_found');
      expect(error?.message).toBe('No route matches this path.');
    });

    it.each([[new ImATeapotException()], [new InternalServerErrorException()], [new HttpException('Gone', 410)]])(
      'leaves the unmapped %p to the 500 path',
      (exception) => {
        expect(toAppError(exception)).toBeNull();
      },
    );
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a string', 'boom'],
    ['undefined', undefined],
    ['null', null],
    ['an object with a status', { status: 400, message: 'looks like an HTTP error' }],
    ['an Error with a status but not exposed', Object.assign(new Error('db down'), { status: 400 })],
  ])('returns null for %s (an unexpected failure)', (_case, value) => {
    expect(toAppError(value)).toBeNull();
  });
});
