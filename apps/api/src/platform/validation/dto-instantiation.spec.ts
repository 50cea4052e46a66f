import { Exclude, Expose, plainToInstance, Transform, TransformFnParams, Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { BulkCreateResourcesDto, BulkUpdateResourcesDto } from '../../resources/dto/bulk-resources.dto';
import { DtoInstantiation } from './dto-instantiation';

type Dto = new () => object;

/** A value as a request body carries it. */
const parsed = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function expectSameInstance(dto: Dto, value: object): void {
  const instantiation = DtoInstantiation.of(dto);
  expect(instantiation).not.toBeNull();
  expect(instantiation?.instantiate(parsed(value))).toStrictEqual(plainToInstance(dto, parsed(value)));
}

class Item {
  @IsString()
  @Transform(({ value }: TransformFnParams) => (typeof value === 'string' ? value.trim() : value))
  name: string;

  @IsOptional()
  @IsString({ each: true })
  tags?: string[];

  @IsOptional()
  metadata?: Record<string, unknown>;
}

class Basket {
  @ValidateNested({ each: true })
  @Type(() => Item)
  items: Item[];

  @IsOptional()
  @ValidateNested()
  @Type(() => Item)
  favourite?: Item;
}

describe('DtoInstantiation', () => {
  it("makes plainToInstance's instance of a bulk body: items, nested data copied anew, transforms applied", () => {
    const item = { name: '  Server  ', tags: ['a', 'b'], metadata: { region: 'eu', limits: [1, { cpu: 2 }], nothing: null } };
    expectSameInstance(BulkCreateResourcesDto, { resources: [item, { ...item, name: 'Disk' }] });
    expectSameInstance(BulkUpdateResourcesDto, { ids: ['res_1'], updates: { status: 'archived' } });
    const body = parsed({ resources: [item] });
    const made = DtoInstantiation.of(BulkCreateResourcesDto)?.instantiate(body) as { resources: { metadata: unknown; name: string }[] };
    expect(made.resources[0].metadata).not.toBe(body.resources[0].metadata);
    expect(made.resources[0].name).toBe('Server');
  });

  it('makes what plainToInstance makes of values that are not objects where a DTO is typed, and of lists in lists', () => {
    for (const value of [
      { items: [null, 'text', 3, true] },
      { items: [[{ name: 'nested' }], []] },
      { items: 'not a list', favourite: { name: 'x' } },
      { items: [], favourite: [{ name: 'x' }] },
      { items: [{ name: 5, metadata: { list: [[1], { deep: { deeper: 'y' } }] } }] },
    ]) {
      expectSameInstance(Basket, value);
    }
  });

  it("leaves out of copied data the keys plainToInstance leaves out: Object.prototype's members", () => {
    const value = { items: [{ name: 'a', metadata: { toString: 'x', valueOf: 1, hasOwnProperty: true, kept: 'y' } }] };
    expectSameInstance(Basket, value);
    const made = DtoInstantiation.of(Basket)?.instantiate(parsed(value)) as Basket;
    expect(Object.keys(made.items[0].metadata ?? {})).toEqual(['kept']);
  });

  it('gives each transform the arguments plainToInstance gives it', () => {
    const seen: Omit<TransformFnParams, 'type'>[][] = [[], []];
    let recording = 0;
    class Recorded {
      @IsString()
      @Transform(({ value, key, obj, options }: TransformFnParams) => {
        seen[recording].push({ value: value as unknown, key, obj: obj as unknown, options });
        return value as unknown;
      })
      name: string;
    }
    DtoInstantiation.of(Recorded)?.instantiate({ name: 'a' });
    recording = 1;
    plainToInstance(Recorded, { name: 'a' });
    expect(seen[0]).toStrictEqual(seen[1]);
  });

  it('leaves to plainToInstance a value with a key its DTO does not declare, or whose nested item has one', () => {
    expect(DtoInstantiation.of(Basket)?.instantiate({ items: [], other: 1 })).toBeUndefined();
    expect(DtoInstantiation.of(Basket)?.instantiate({ items: [{ name: 'a', extra: true }] })).toBeUndefined();
    expect(DtoInstantiation.of(Basket)?.instantiate({ toString: 'x' })).toBeUndefined();
  });

  it('reads no DTO using what it does not read: exposed or excluded names, accessors, typed sets, converted types', () => {
    class Exposed {
      @Expose({ name: 'full_name' })
      @IsString()
      name: string;
    }
    class Excluded {
      @Exclude()
      @IsString()
      secret: string;
    }
    class Accessor {
      @IsString()
      get name(): string {
        return 'fixed';
      }
    }
    class TypedSet {
      @ValidateNested({ each: true })
      @Type(() => Item)
      items: Set<Item>;
    }
    class Converted {
      @IsOptional()
      @Type(() => Number)
      count?: number;
    }
    for (const dto of [Exposed, Excluded, Accessor, TypedSet]) expect({ dto: dto.name, read: DtoInstantiation.of(dto) }).toEqual({ dto: dto.name, read: null });
    expect(DtoInstantiation.of(Converted)?.instantiate({ count: { n: 1 } })).toBeUndefined();
    expect(DtoInstantiation.of(Converted)?.instantiate({ count: 3 })).toStrictEqual(plainToInstance(Converted, { count: 3 }));
  });

  it('follows a type chosen by the object at hand, as plainToInstance does', () => {
    class Small {
      @IsString()
      size: string;
    }
    class Large {
      @IsString()
      size: string;
    }
    class Parcel {
      @ValidateNested()
      @Type((options) => ((options?.object as { content?: { size?: string } }).content?.size === 'L' ? Large : Small))
      content: Small | Large;
    }
    expectSameInstance(Parcel, { content: { size: 'L' } });
    expectSameInstance(Parcel, { content: { size: 'S' } });
  });
});
