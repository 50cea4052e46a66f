import { SetMetadata } from '@nestjs/common';

export const USER_LOGIN_ONLY = 'rms:userLoginOnly';

/**
 * Restricts a controller or route to the user's own login (JWT or session): API keys and OAuth
 * tokens are refused with 403 whatever their scopes. Used where credentials are managed.
 */
export const UserLoginOnly = (): MethodDecorator & ClassDecorator => SetMetadata(USER_LOGIN_ONLY, true);
