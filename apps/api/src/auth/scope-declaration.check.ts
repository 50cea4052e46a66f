import { Injectable, OnModuleInit, Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '../platform/decorators/public.decorator';
import { SCOPE_AREA } from '../platform/decorators/scope.decorator';

/** `Controller.method` of every route that is neither `@Public()` nor declares `@ScopeArea(...)`. */
export function findUndeclaredRoutes(controllers: Type[], scanner: MetadataScanner, reflector: Reflector): string[] {
  const undeclared: string[] = [];
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const targets = [handler, controller];
      if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) continue;
      if (reflector.getAllAndOverride<unknown>(SCOPE_AREA, targets) !== undefined) continue;
      undeclared.push(`${controller.name}.${name}`);
    }
  }
  return undeclared;
}

/**
 * Refuses to start an application with a route that says neither who may call it
 * (`@Public()`) nor which scope it needs (`@ScopeArea`): a forgotten decorator is a failed
 * start, not an endpoint that any API key may call.
 */
@Injectable()
export class ScopeDeclarationCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const controllers = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype)
      .filter((metatype): metatype is Type => typeof metatype === 'function');
    const undeclared = findUndeclaredRoutes(controllers, this.scanner, this.reflector);
    if (undeclared.length > 0) {
      throw new Error(
        `Every route must be @Public() or declare @ScopeArea(...); these declare neither: ${undeclared.join(', ')}.`,
      );
    }
  }
}
