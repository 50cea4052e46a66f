import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const IS_PUBLIC = 'rms:isPublic';

/** OpenAPI marker of a public operation; the document builder turns it into `security: []`. */
export const PUBLIC_OPERATION = 'x-public';

/** Opts a route out of authentication; every other route needs a credential. */
export const Public = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(PUBLIC_OPERATION, true));

export const ACCEPTS_LEGACY_TOKEN = 'rms:acceptsLegacyToken';

/** The route's credential is a legacy `X-Auth-Token`, refused as a removed method everywhere else. */
export const AcceptsLegacyToken = (): MethodDecorator => SetMetadata(ACCEPTS_LEGACY_TOKEN, true);

export const ACCEPTS_CLIENT_BASIC = 'rms:acceptsClientBasic';

/** OAuth clients authenticate with HTTP Basic (RFC 6749 2.3.1), a removed method everywhere else. */
export const AcceptsClientBasic = (): MethodDecorator & ClassDecorator => SetMetadata(ACCEPTS_CLIENT_BASIC, true);
