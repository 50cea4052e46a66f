import { TransformationType, TransformFnParams } from 'class-transformer';
import { defaultOptions } from 'class-transformer/cjs/constants/default-options.constant';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage } from 'class-validator';

type Dto = new () => object;

/** What plainToInstance does with one declared property of a DTO, read once. */
interface PropertyPlan {
  /** `@Type`: gives the class each object of the value becomes; undefined: the value is copied as plain data. */
  typeOf: ((object: object, instance: object) => unknown) | undefined;
  /** The property's `@Transform`s that apply from plain to class, in order. */
  transforms: ((params: TransformFnParams) => unknown)[];
}

/** What a value holds that only plainToInstance itself can read: a key its DTO does not declare, say. */
const UNREAD = Symbol('left to class-transformer');

/** Keys plainToInstance leaves out of a plain object it copies: those of Object.prototype, whose slot already holds a member. */
const OBJECT_MEMBERS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The options plainToInstance gives each `@Transform` when called without any, as ValidationPipe calls it. */
const TRANSFORM_OPTIONS = { ...defaultOptions };

/** `@Type`s plainToInstance converts a value to, or fills as a collection, rather than instantiating a DTO: left to it. */
const CONVERTED_TYPES = new Set<unknown>([String, Number, Boolean, Date, Buffer, Map, Set, Array, Object]);

/**
 * Whether plainToInstance makes a plain array of an array under a `@Type` property whose
 * `design:type` is `reflectedType`: not for a Set, a Map or a subclass of Array.
 */
function makesPlainArrays(reflectedType: unknown): boolean {
  if (reflectedType === Set || reflectedType === Map) return false;
  return !(typeof reflectedType === 'function' && reflectedType.prototype instanceof Array);
}

/**
 * A DTO's class-transformer metadata, read once: makes of a JSON value the instance
 * `plainToInstance(dto, value)` makes (ValidationPipe's transform), without its metadata lookups
 * for every key of every object, the largest part of a bulk create's validation. It reads the
 * DTO's declared properties only (those with class-validator rules): a value with another key, or
 * a DTO using what it does not read (`@Expose`, `@Exclude`, discriminators, typed collections),
 * is left to plainToInstance. `dto-rule-check.spec.ts` compares both on every DTO of the API.
 */
export class DtoInstantiation {
  private static readonly instantiations = new WeakMap<object, DtoInstantiation | null>();

  private constructor(
    private readonly dto: Dto,
    private readonly properties: ReadonlyMap<string, PropertyPlan>,
  ) {}

  /** The instantiation of a DTO, read at its first use; null when only plainToInstance can make its instances. */
  static of(dto: Dto): DtoInstantiation | null {
    let instantiation = DtoInstantiation.instantiations.get(dto);
    if (instantiation === undefined) {
      instantiation = DtoInstantiation.read(dto);
      DtoInstantiation.instantiations.set(dto, instantiation);
    }
    return instantiation;
  }

  private static read(dto: Dto): DtoInstantiation | null {
    const storage = defaultMetadataStorage;
    if (storage.getStrategy(dto) !== 'none' || storage.getExposedMetadatas(dto).length > 0 || storage.getExcludedMetadatas(dto).length > 0) {
      return null;
    }
    // The arguments class-validator's executor passes without groups, `always` or a schema, as DtoRuleCheck reads them.
    const declared = new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false, undefined).map((rule) => rule.propertyName));
    const blank = new dto() as Record<string, unknown>;
    const properties = new Map<string, PropertyPlan>();
    for (const property of declared) {
      // plainToInstance skips a key whose slot holds a method or a getter without a setter.
      const descriptor = Object.getOwnPropertyDescriptor(dto.prototype, property);
      if ((descriptor && !descriptor.set) || blank[property] instanceof Function) return null;
      const type = storage.findTypeMetadata(dto, property);
      if (type && (type.options?.discriminator || !type.typeFunction || !makesPlainArrays(type.reflectedType))) return null;
      const transforms = storage
        .findTransformMetadatas(dto, property, TransformationType.PLAIN_TO_CLASS)
        .filter((metadata) => !metadata.options?.groups?.length)
        .map((metadata) => metadata.transformFn);
      properties.set(property, {
        typeOf: type ? (object, instance) => type.typeFunction({ newObject: instance, object, property }) : undefined,
        transforms,
      });
    }
    return new DtoInstantiation(dto, properties);
  }

  /** The instance plainToInstance makes of a plain object; undefined where only plainToInstance can make it. */
  instantiate(value: object): object | undefined {
    const instance = this.instanceOf(value);
    return instance === UNREAD ? undefined : instance;
  }

  private instanceOf(value: object): object | typeof UNREAD {
    const instance = new this.dto() as Record<string, unknown>;
    const fields = value as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      const plan = this.properties.get(key);
      if (plan === undefined) return UNREAD;
      let result = plan.typeOf === undefined ? plainCopy(fields[key]) : DtoInstantiation.typedCopy(plan.typeOf(value, instance), fields[key]);
      if (result === UNREAD) return UNREAD;
      for (const transform of plan.transforms) {
        result = transform({ value: result, key, obj: value, type: TransformationType.PLAIN_TO_CLASS, options: TRANSFORM_OPTIONS });
      }
      instance[key] = result;
    }
    return instance;
  }

  /** A `@Type` property's value: each object in it an instance of `type`, arrays copied, anything else as it is. */
  private static typedCopy(type: unknown, value: unknown): unknown {
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const item of value) {
        const copied = DtoInstantiation.typedCopy(type, item);
        if (copied === UNREAD) return UNREAD;
        items.push(copied);
      }
      return items;
    }
    if (value === null || typeof value !== 'object') return value;
    if (typeof type !== 'function' || CONVERTED_TYPES.has(type)) return UNREAD;
    return DtoInstantiation.of(type as Dto)?.instanceOf(value) ?? UNREAD;
  }
}

/** A value without `@Type` as plainToInstance copies it: arrays and objects anew, all the way down. */
function plainCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainCopy);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!OBJECT_MEMBERS.has(key)) copy[key] = plainCopy(fields[key]);
  return copy;
}
