import { SetMetadata } from '@nestjs/common';
import type { ScopeArea as Area } from '@app/common';

export const SCOPE_AREA = 'rms:scopeArea';

/**
 * Declares the scope area of a controller or route: GET needs `read:<area>`, every other
 * method `write:<area>`. `null` means any authenticated credential may call it (the route then
 * restricts credentials itself). Every non-public route must declare one.
 */
export const ScopeArea = (area: Area | null): MethodDecorator & ClassDecorator => SetMetadata(SCOPE_AREA, area);
