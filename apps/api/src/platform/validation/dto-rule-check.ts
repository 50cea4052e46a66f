import { plainToInstance } from 'class-transformer';
import { ValidationArguments, ValidationTypes, ValidatorConstraintInterface, getMetadataStorage } from 'class-validator';
import { DtoInstantiation } from './dto-instantiation';

type Condition = (object: object, value: unknown) => boolean;

/** One synchronous rule of a property: a constraint's validator, with the arguments class-validator gives it. */
interface PropertyRule {
  validator: ValidatorConstraintInterface;
  constraints: unknown[];
  /** `each: true`: the rule holds for every item of an array, set or map. */
  each: boolean;
}

interface PropertyRules {
  property: string;
  /** `@IsOptional`, `@ValidateIf`: the property is checked only when every condition holds. */
  conditions: Condition[];
  rules: PropertyRule[];
  /** `@ValidateNested`: the value, or each item of it, is a DTO instance checked by its own rules. */
  nested: boolean;
}

/** The kinds of rule the check reads; any other (promises) leaves the DTO to class-validator. */
const RULE_KINDS_READ = new Set<string>([
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.IS_DEFINED,
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.WHITELIST,
  ValidationTypes.NESTED_VALIDATION,
]);

/** Keys ValidationPipe deletes from every object of a value before reading it. */
const STRIPPED_KEYS = ['__proto__', 'prototype', 'constructor'];

/** How deep a value's objects and arrays are looked into before ValidationPipe is left to read it. */
const DEPTH_READ = 16;

/** An object with no own enumerable key: a request without query parameters, or a body `{}`. */
function isEmptyObject(value: object): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  return true;
}

/**
 * Whether class-transformer makes of `{}` what `new dto()` makes (the same own keys in the same
 * order, the same values): then an empty value needs no pass through class-transformer's metadata.
 */
function instantiatesAsNew(dto: new () => object): boolean {
  const transformed = plainToInstance(dto, {}) as Record<string, unknown>;
  const created = new dto() as Record<string, unknown>;
  const keys = Object.keys(transformed);
  const createdKeys = Object.keys(created);
  return keys.length === createdKeys.length && keys.every((key, index) => key === createdKeys[index] && Object.is(transformed[key], created[key]));
}

function isThenable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Whether a value is data as JSON and query strings carry it (text, numbers, booleans, null, arrays
 * without gaps, plain objects) that ValidationPipe would read as it is: none of its objects holds
 * a key the pipe strips, and nothing in it is binary, a class instance or a sparse array.
 */
function isPlainData(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function' && typeof value !== 'symbol' && typeof value !== 'bigint';
  if (depth > DEPTH_READ) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!(index in value) || !isPlainData(value[index], depth + 1)) return false;
    }
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key of STRIPPED_KEYS) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  for (const key in value) {
    if (!isPlainData((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * A DTO's class-validator rules, read once. class-validator looks them up again on every call,
 * walking every validated class of the application (about 80 µs of a list request); this
 * answers a valid value with the instance ValidationPipe would give, at the cost of the rules
 * alone. It only ever accepts: a value it does not accept goes to ValidationPipe, which refuses
 * it in its own words or accepts it after all. A nested DTO (`@ValidateNested`, the items of a
 * bulk body) is checked by its own class's rules, as class-validator checks it; DTOs with
 * promised, grouped or async rules are left to ValidationPipe whole.
 */
export class DtoRuleCheck {
  /** Each class's check once read (null: only class-validator can check it), for `of`. */
  private static readonly checks = new WeakMap<object, DtoRuleCheck | null>();

  private readonly declared: ReadonlySet<string>;
  private readonly emptyIsNew: boolean;
  private readonly instantiation: DtoInstantiation | null;

  private constructor(
    private readonly dto: new () => object,
    private readonly properties: readonly PropertyRules[],
  ) {
    this.declared = new Set(properties.map((entry) => entry.property));
    this.emptyIsNew = instantiatesAsNew(dto);
    this.instantiation = DtoInstantiation.of(dto);
  }

  /** The check of a DTO, read at its first use; null when a rule of it needs class-validator itself. */
  static of(dto: new () => object): DtoRuleCheck | null {
    let check = DtoRuleCheck.checks.get(dto);
    if (check === undefined) {
      // A DTO nesting itself meets null while it is read, and leaves such values to the pipe.
      DtoRuleCheck.checks.set(dto, null);
      check = DtoRuleCheck.read(dto);
      DtoRuleCheck.checks.set(dto, check);
    }
    return check;
  }

  /** The check of a DTO, read now; null when a rule of it needs class-validator itself. */
  static read(dto: new () => object): DtoRuleCheck | null {
    const storage = getMetadataStorage();
    // The arguments class-validator's executor passes without groups, `always` or a schema.
    const metadatas = storage.getTargetValidationMetadatas(dto, '', false, false, undefined);
    // No rule at all is refused by `forbidUnknownValues`.
    if (metadatas.length === 0) return null;
    const byProperty = new Map<string, PropertyRules>();
    for (const metadata of metadatas) {
      if (!RULE_KINDS_READ.has(metadata.type) || (metadata.groups?.length ?? 0) > 0) return null;
      let entry = byProperty.get(metadata.propertyName);
      if (entry === undefined) {
        entry = { property: metadata.propertyName, conditions: [], rules: [], nested: false };
        byProperty.set(metadata.propertyName, entry);
      }
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        entry.conditions.push(metadata.constraints[0] as Condition);
      } else if (metadata.type === ValidationTypes.NESTED_VALIDATION) {
        entry.nested = true;
      } else if (metadata.type !== ValidationTypes.WHITELIST) {
        for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
          if (constraint.async) return null;
          entry.rules.push({ validator: constraint.instance, constraints: metadata.constraints as unknown[], each: metadata.each });
        }
      }
    }
    return new DtoRuleCheck(dto, [...byProperty.values()]);
  }

  /**
   * The DTO instance of a value every rule passes, as ValidationPipe would answer it
   * (class-transformer's instance, `@Transform`s applied); undefined for anything else.
   */
  accept(value: unknown): object | undefined {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !isPlainData(value, 0)) return undefined;
    const instance = this.instanceOf(value);
    return this.holdsFor(instance) ? instance : undefined;
  }

  /**
   * class-transformer's instance of a plain object: made from the DTO's metadata read once where
   * it can be; else `new dto()` for an empty value when that is the same, or plainToInstance.
   */
  private instanceOf(value: object): object {
    const made = this.instantiation?.instantiate(value);
    if (made !== undefined) return made;
    return this.emptyIsNew && isEmptyObject(value) ? new this.dto() : plainToInstance(this.dto, value);
  }

  /** Whether an instance, as class-transformer made it, declares every key it has and passes every rule. */
  private holdsFor(instance: object): boolean {
    for (const key of Object.keys(instance)) if (!this.declared.has(key)) return false;
    const fields = instance as Record<string, unknown>;
    for (const { property, conditions, rules, nested } of this.properties) {
      const field = fields[property];
      if (!conditions.every((condition) => condition(instance, field))) continue;
      for (const rule of rules) if (!this.passes(rule, instance, property, field)) return false;
      // class-validator passes over a nested value that is not there, as over an optional one.
      if (nested && field !== undefined && !DtoRuleCheck.nestedHold(field)) return false;
    }
    return true;
  }

  /**
   * Whether a `@ValidateNested` value passes: a DTO instance, or an array of them, each passing
   * its own class's rules. Anything else (null, a primitive, a Set, an array in an array, a class
   * without readable rules) is left to class-validator, whose refusals it words.
   */
  private static nestedHold(field: unknown): boolean {
    const items: unknown[] = Array.isArray(field) ? field : [field];
    return items.every((item) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
      const check = DtoRuleCheck.of(item.constructor as new () => object);
      return check !== null && check.holdsFor(item);
    });
  }

  private passes(rule: PropertyRule, object: object, property: string, field: unknown): boolean {
    const args: ValidationArguments = { targetName: this.dto.name, property, object, value: field, constraints: rule.constraints };
    const holds = (value: unknown): boolean => {
      const valid: unknown = rule.validator.validate(value, args);
      return !isThenable(valid) && Boolean(valid);
    };
    const items = rule.each ? DtoRuleCheck.itemsOf(field) : undefined;
    return items === undefined ? holds(field) : items.every(holds);
  }

  /** The items class-validator checks one by one under `each: true`; undefined for a single value. */
  private static itemsOf(field: unknown): unknown[] | undefined {
    if (Array.isArray(field)) return field as unknown[];
    if (field instanceof Map) return [...(field as Map<unknown, unknown>).values()];
    if (field instanceof Set) return [...(field as Set<unknown>)];
    return undefined;
  }
}
