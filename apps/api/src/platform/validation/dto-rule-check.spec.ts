import { globSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationPipe } from '@nestjs/common';
import { Expose, Transform, Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Min,
  ValidateBy,
  ValidateNested,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  getMetadataStorage,
} from 'class-validator';
import { DTO_VALIDATION_OPTIONS } from './app-validation.pipe';
import { DtoRuleCheck } from './dto-rule-check';

type Dto = new () => object;

const reference = new ValidationPipe({ ...DTO_VALIDATION_OPTIONS });

/** A copy of a sample as a request carries it (JSON's, not structuredClone's, whose objects come from another realm under jest). */
const copyOf = <T>(sample: T): T => JSON.parse(JSON.stringify(sample)) as T;

/** ValidationPipe's answer: the instance it gives, or 'refused'. */
async function referenceAnswer(dto: Dto, value: unknown): Promise<object | 'refused'> {
  try {
    return (await reference.transform(copyOf(value), { type: 'body', metatype: dto })) as object;
  } catch {
    return 'refused';
  }
}

/** Every DTO class the API declares, found by file name so that a new one is covered too. */
async function applicationDtos(): Promise<Dto[]> {
  const root = join(__dirname, '..', '..');
  const ruled = new Set<unknown>();
  for (const file of globSync('**/*.{dto,query}.ts', { cwd: root })) {
    for (const exported of Object.values((await import(join(root, file))) as Record<string, unknown>)) {
      if (typeof exported === 'function' && getMetadataStorage().getTargetValidationMetadatas(exported, '', false, false).length > 0) {
        ruled.add(exported);
      }
    }
  }
  return [...ruled] as Dto[];
}

function propertiesOf(dto: Dto): string[] {
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false).map((rule) => rule.propertyName))];
}

/** A seeded generator, so that a failure names a sample that can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ORG_ID = 'org_01JD6Z8W3M5Q7R9T1V3X5Z7B9D';
const FIELD_VALUES: unknown[] = [
  '', ' ', 'a', 'Report', '  padded name  ', '1', '20', '0', '-1', '101', '2.5', '1e3', 'true', 'false', 'yes',
  'active', 'archived', 'active,archived', 'active,,archived', 'standard', 'premium', 'enterprise', 'name', '-created_at',
  'name,-name', 'name,updated_at', 'id,name,status', 'nope', ORG_ID, 'org_short', 'https://example.com/hook',
  'http://localhost/hook', 'resource.created', 'a@example.com', 'correct horse battery staple', 'admin', 'member',
  '2026-01-01T00:00:00Z', 'x'.repeat(300), 1, 20, 0, -1, 2.5, 1e20, true, false, null, [], ['a'], ['20', '30'],
  ['bench', 'blue'], ['resource.created', 'resource.deleted'], {}, { source: 'bench', n: 1 }, { nested: { deep: [1] } },
  // Lists of bodies, for the DTOs that nest one (a bulk create): valid, one item invalid, one with an undeclared field.
  [{ name: 'Report' }, { name: 'Draft', tags: ['blue'] }], [{ name: 'Report' }, { name: '' }], [{ name: 'Report', undeclared: 1 }],
  [null], [[{ name: 'Report' }]],
];

function sampleOf(properties: string[], random: () => number): Record<string, unknown> {
  const sample: Record<string, unknown> = {};
  for (const property of properties) {
    if (random() < 0.5) sample[property] = FIELD_VALUES[Math.floor(random() * FIELD_VALUES.length)];
  }
  if (random() < 0.1) sample.undeclared = 'x';
  return sample;
}

/** Values the API's own clients send, which the check must accept as ValidationPipe does. */
const KNOWN_VALID: Record<string, unknown>[] = [
  { limit: '20' },
  { limit: '20', cursor: 'abc', sort: '-created_at,name', 'filter[status]': 'active,archived', fields: 'id,name' },
  { page: '2', per_page: '50', 'filter[organization_id]': ORG_ID },
  { name: 'Benchmark resource 1', description: 'Created by the benchmark', type: 'standard', metadata: { source: 'bench', n: 1 }, tags: ['bench'] },
  { name: '  Report  ', organization_id: null },
  { resources: [{ name: 'Benchmark resource 1', description: 'Created by the benchmark', type: 'standard', metadata: { source: 'bench', n: 1 }, tags: ['bench'] }, { name: 'Report' }] },
];

describe('DtoRuleCheck', () => {
  it("answers every DTO of the API as ValidationPipe does: the same instance, or nothing where it refuses", async () => {
    const random = seeded(20261128);
    const counts = { accepted: 0, refused: 0 };
    for (const dto of await applicationDtos()) {
      const check = DtoRuleCheck.read(dto);
      const properties = propertiesOf(dto);
      const samples = [{}, ...KNOWN_VALID, ...Array.from({ length: 300 }, () => sampleOf(properties, random))];
      for (const sample of samples) {
        const expected = await referenceAnswer(dto, sample);
        const accepted = check?.accept(copyOf(sample));
        const case_ = `${dto.name} ${JSON.stringify(sample)}`;
        if (expected === 'refused') {
          expect({ case_, accepted }).toEqual({ case_, accepted: undefined });
          counts.refused++;
        } else if (accepted === undefined) {
          // Only data the check cannot read plainly is left to ValidationPipe when it is valid.
          expect({ case_, check: check === null ? 'none' : 'declined' }).toEqual({ case_, check: 'none' });
        } else {
          expect(accepted).toBeInstanceOf(dto);
          expect({ case_, accepted }).toStrictEqual({ case_, accepted: expected });
          counts.accepted++;
        }
      }
    }
    expect(counts.accepted).toBeGreaterThan(100);
    expect(counts.refused).toBeGreaterThan(100);
  });

  class ListQuery {
    @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? Number(value) : value))
    @IsOptional()
    @IsInt()
    @Min(1)
    limit?: number;

    @IsOptional()
    @IsIn(['name', 'created_at'], { each: true })
    sort?: string | string[];
  }

  it('applies transforms, conditions and rules of each item, and refuses nothing itself', () => {
    const check = DtoRuleCheck.read(ListQuery);
    expect(check?.accept({ limit: '20', sort: ['name', 'created_at'] })).toStrictEqual(Object.assign(new ListQuery(), { limit: 20, sort: ['name', 'created_at'] }));
    expect(check?.accept({})).toBeInstanceOf(ListQuery);
    expect(check?.accept({ limit: '0' })).toBeUndefined();
    expect(check?.accept({ sort: ['name', 'size'] })).toBeUndefined();
    expect(check?.accept({ limit: '5', offset: '1' })).toBeUndefined();
  });

  it('leaves to ValidationPipe what it would read otherwise: stripped keys, gaps, binary and class values', () => {
    const check = DtoRuleCheck.read(ListQuery);
    expect(check?.accept(JSON.parse('{"limit":"5","__proto__":{"x":1}}'))).toBeUndefined();
    expect(check?.accept({ limit: '5', constructor: 'x' })).toBeUndefined();
    expect(check?.accept({ sort: { prototype: 1 } })).toBeUndefined();
    // eslint-disable-next-line no-sparse-arrays
    expect(check?.accept({ sort: [, 'name'] })).toBeUndefined();
    expect(check?.accept({ sort: Buffer.from('name') })).toBeUndefined();
    expect(check?.accept({ sort: new Date() })).toBeUndefined();
    expect(check?.accept(['limit'])).toBeUndefined();
    expect(check?.accept('limit=5')).toBeUndefined();
    expect(check?.accept(null)).toBeUndefined();
  });

  it('checks a nested DTO, or each item of a list of them, by its own rules, as ValidationPipe does', async () => {
    class Item {
      @IsString()
      name!: string;
    }
    class Nested {
      @ValidateNested()
      @Type(() => Item)
      item?: Item;
    }
    class Listed {
      @ValidateNested({ each: true })
      @Type(() => Item)
      items!: Item[];
    }
    class Untyped {
      @ValidateNested()
      item!: object;
    }
    const accepted: Array<[Dto, unknown]> = [
      [Nested, { item: { name: 'a' } }],
      [Nested, {}],
      [Listed, { items: [{ name: 'a' }, { name: 'b' }] }],
      [Listed, { items: [] }],
    ];
    const refused: Array<[Dto, unknown]> = [
      [Nested, { item: { name: 7 } }],
      [Nested, { item: { name: 'a', extra: 1 } }],
      [Nested, { item: 'a' }],
      [Nested, { item: null }],
      [Listed, { items: [{ name: 'a' }, { name: 1 }] }],
      [Listed, { items: [{ name: 'a' }, null] }],
      [Untyped, { item: { name: 'a' } }],
    ];
    for (const [dto, value] of accepted) {
      const answer = DtoRuleCheck.read(dto)?.accept(copyOf(value));
      expect(answer).toBeDefined();
      expect(answer).toStrictEqual(await referenceAnswer(dto, value));
    }
    expect((DtoRuleCheck.read(Listed)?.accept({ items: [{ name: 'a' }] }) as Listed).items[0]).toBeInstanceOf(Item);
    for (const [dto, value] of refused) {
      expect(await referenceAnswer(dto, value)).toBe('refused');
      expect(DtoRuleCheck.read(dto)?.accept(copyOf(value))).toBeUndefined();
    }
  });

  it('reads no DTO whose rules class-validator must run: grouped, async or ruleless', () => {
    class Grouped {
      @IsString({ groups: ['create'] })
      name!: string;
    }
    @ValidatorConstraint({ async: true })
    class RemoteCheck implements ValidatorConstraintInterface {
      validate(): Promise<boolean> {
        return Promise.resolve(true);
      }
    }
    class Remote {
      @Validate(RemoteCheck)
      name!: string;
    }
    class Ruleless {
      name?: string;
    }
    for (const dto of [Grouped, Remote, Ruleless]) expect(DtoRuleCheck.read(dto)).toBeNull();
  });

  it('leaves a rule that answers with a promise to ValidationPipe', () => {
    class Promising {
      @ValidateBy({ name: 'promising', validator: { validate: () => Promise.resolve(true) } })
      name!: string;
    }
    expect(DtoRuleCheck.read(Promising)?.accept({ name: 'a' })).toBeUndefined();
  });

  it('checks inherited rules and required fields', () => {
    class Named {
      @IsDefined()
      @IsString()
      name!: string;
    }
    class Described extends Named {
      @IsOptional()
      @IsString()
      description?: string;
    }
    const check = DtoRuleCheck.read(Described);
    expect(check?.accept({ description: 'no name' })).toBeUndefined();
    expect(check?.accept({ name: 7 })).toBeUndefined();
    expect(check?.accept({ name: 'a', description: 'b' })).toStrictEqual(Object.assign(new Described(), { name: 'a', description: 'b' }));
  });

  it("makes class-transformer's instance of an empty value when it is not just a new one", async () => {
    class Exposed {
      @Expose()
      @IsOptional()
      @IsString()
      name?: string;
    }
    const accepted = DtoRuleCheck.read(Exposed)?.accept({});
    expect(accepted).toStrictEqual(await referenceAnswer(Exposed, {}));
    expect(Object.keys(accepted ?? {})).toEqual(['name']);
  });
});
