import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'rms:isPublic';

/** Opts a route out of authentication; every other route needs a credential. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
