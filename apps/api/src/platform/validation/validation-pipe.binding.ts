import { Injectable, Paramtype, PipeTransform, Type } from '@nestjs/common';
import { PARAMTYPES_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { AppValidationPipe, isValidatedParameter } from './app-validation.pipe';

/** Nest's record of one decorated handler parameter, kept under `ROUTE_ARGS_METADATA`. */
interface RouteParameter {
  index: number;
  pipes: Array<PipeTransform | Type<PipeTransform>>;
}

/** The kinds of parameter Nest hands to a pipe with their own type; the rest arrive as `custom`. */
const PIPED_KINDS = new Map<string, Paramtype>([
  [String(RouteParamtypes.BODY), 'body'],
  [String(RouteParamtypes.QUERY), 'query'],
  [String(RouteParamtypes.PARAM), 'param'],
]);

/**
 * Puts `pipe` first among the own pipes of every handler parameter it could change or refuse
 * (`isValidatedParameter`), once, across the given controllers.
 */
export function bindValidationPipe(controllers: Type[], pipe: AppValidationPipe): void {
  const scanner = new MetadataScanner();
  for (const controller of controllers) {
    const prototype = controller.prototype as object;
    for (const method of scanner.getAllMethodNames(prototype)) {
      const parameters = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) as Record<string, RouteParameter> | undefined;
      if (parameters === undefined) continue;
      const metatypes = (Reflect.getMetadata(PARAMTYPES_METADATA, prototype, method) ?? []) as unknown[];
      for (const [key, parameter] of Object.entries(parameters)) {
        const kind = PIPED_KINDS.get(key.split(':')[0]);
        if (kind === undefined || !isValidatedParameter(kind, metatypes[parameter.index])) continue;
        if (!parameter.pipes.some((bound) => bound instanceof AppValidationPipe)) parameter.pipes.unshift(pipe);
      }
    }
  }
}

/**
 * Validation for every controller of the application, modules added later included, bound to the
 * parameters that need it rather than registered as a global pipe: Nest runs a global pipe on
 * every parameter of every request, through an async chain of its own, even where it has nothing
 * to check (an id, the caller, a raw query), and that chain cost each request about 4%.
 *
 * It binds when the provider is made, because Nest registers routes before any init hook runs.
 * So a pipe a module puts on a controller or a method (`@UsePipes`) runs before the validation.
 */
@Injectable()
export class ValidationPipeBinding {
  constructor(modules: ModulesContainer) {
    const controllers = [...modules.values()].flatMap((module) =>
      [...module.controllers.values()].map((wrapper) => wrapper.metatype).filter((metatype): metatype is Type => typeof metatype === 'function'),
    );
    bindValidationPipe(controllers, new AppValidationPipe());
  }
}
