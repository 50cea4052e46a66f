import { Injectable, OnModuleInit, Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { isDeclaredValidated } from './validated-parameters';

/** Where TypeScript records the declared types of a decorated method's parameters (`emitDecoratorMetadata`). */
const PARAMETER_TYPES = 'design:paramtypes';

/** A class with class-validator rules: a DTO. */
function isDto(type: unknown): type is Type {
  return typeof type === 'function' && getMetadataStorage().getTargetValidationMetadatas(type, '', false, false).length > 0;
}

/** `Controller.method` and the parameter of every handler parameter typed as a DTO but not declared validated. */
export function findUnvalidatedParameters(controllers: Type[], scanner: MetadataScanner): string[] {
  const unvalidated: string[] = [];
  for (const controller of controllers) {
    const prototype = controller.prototype as object;
    for (const method of scanner.getAllMethodNames(prototype)) {
      const types = (Reflect.getMetadata(PARAMETER_TYPES, prototype, method) ?? []) as unknown[];
      types.forEach((type, index) => {
        if (isDto(type) && !isDeclaredValidated(prototype, method, index)) {
          unvalidated.push(`${controller.name}.${method} (parameter ${index + 1}, ${type.name})`);
        }
      });
    }
  }
  return unvalidated;
}

/**
 * Refuses to start an application with a DTO parameter that nothing validates: without
 * `@ValidBody()` or `@ValidQuery()`, `@Body()` and `@Query()` hand the handler the raw input
 * under the DTO's type, unknown fields and all.
 */
@Injectable()
export class ValidatedParameterCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onModuleInit(): void {
    const controllers = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype)
      .filter((metatype): metatype is Type => typeof metatype === 'function');
    const unvalidated = findUnvalidatedParameters(controllers, this.scanner);
    if (unvalidated.length > 0) {
      throw new Error(`Every DTO parameter must be declared with @ValidBody() or @ValidQuery(); these are not: ${unvalidated.join(', ')}.`);
    }
  }
}
