import { ValidationError } from '@app/common';
import { IsIn, IsInt, IsOptional, Min } from 'class-validator';
import { AppValidationPipe, WithValidationErrorWording } from './app-validation.pipe';

class PageDto {
  @IsInt()
  @Min(1)
  page!: number;
}

@WithValidationErrorWording({ message: 'The query has invalid parameters.', undeclaredField: (name) => `${name} is not a parameter` })
class PageQuery {
  @IsInt()
  @Min(1)
  page!: number;
}

class SortQuery {
  @IsOptional()
  @IsIn(['name', 'created_at'])
  sort?: string;

  @IsOptional()
  @IsInt()
  limit: number = 20;
}

describe('AppValidationPipe', () => {
  const pipe = new AppValidationPipe();

  it('hands back values without a DTO synchronously and unchanged', () => {
    const auth = { userId: 'usr_1' };
    const query = { fields: 'name' };
    expect(pipe.transform(auth, { type: 'custom', metatype: Object })).toBe(auth);
    expect(pipe.transform('res_1', { type: 'param', metatype: String, data: 'id' })).toBe('res_1');
    expect(pipe.transform(query, { type: 'query', metatype: Object })).toBe(query);
    expect(pipe.transform(query, { type: 'query', metatype: undefined })).toBe(query);
  });

  it('leaves conversions of primitive parameters to ValidationPipe', async () => {
    await expect(pipe.transform('5', { type: 'param', metatype: Number, data: 'n' })).resolves.toBe(5);
    await expect(pipe.transform('true', { type: 'query', metatype: Boolean, data: 'on' })).resolves.toBe(true);
    await expect(pipe.transform(7, { type: 'query', metatype: String, data: 'q' })).resolves.toBe('7');
  });

  it('turns a valid body into its DTO', async () => {
    const dto = await pipe.transform({ page: 2 }, { type: 'body', metatype: PageDto });
    expect(dto).toBeInstanceOf(PageDto);
    expect(dto).toEqual({ page: 2 });
  });

  it('refuses a bad or unknown field of a DTO with every problem listed', async () => {
    const refused = pipe.transform({ page: 0, extra: true }, { type: 'body', metatype: PageDto });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({
      details: expect.arrayContaining([expect.objectContaining({ field: 'page' }), expect.objectContaining({ field: 'extra' })]),
    });
  });

  it("words the refusal of a DTO that declares its wording, and only of that DTO", async () => {
    const worded = pipe.transform({ page: 0, id: 'x' }, { type: 'query', metatype: PageQuery });
    await expect(worded).rejects.toMatchObject({
      message: 'The query has invalid parameters.',
      details: [
        { field: 'id', message: 'id is not a parameter' },
        { field: 'page', message: 'must not be less than 1' },
      ],
    });
    const plain = pipe.transform({ page: 1, id: 'x' }, { type: 'body', metatype: PageDto });
    await expect(plain).rejects.toMatchObject({ message: 'The request has invalid fields.', details: [{ field: 'id', message: 'is read-only' }] });
  });

  it('answers a valid query synchronously with the instance ValidationPipe gives, and leaves refusals to it', async () => {
    const local = new AppValidationPipe();
    const empty = local.transform({}, { type: 'query', metatype: SortQuery });
    expect(empty).toBeInstanceOf(SortQuery);
    expect(empty).toEqual({ limit: 20 });
    expect(local.transform({}, { type: 'query', metatype: SortQuery })).not.toBe(empty);
    expect(local.transform({ sort: 'name' }, { type: 'query', metatype: SortQuery })).toEqual({ sort: 'name', limit: 20 });
    const refused = local.transform({ sort: 'size' }, { type: 'query', metatype: SortQuery });
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ details: [{ field: 'sort', message: 'must be one of the following values: name, created_at' }] });
  });

  it('keeps refusing an empty body whose DTO requires a field', async () => {
    const local = new AppValidationPipe();
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(local.transform({}, { type: 'body', metatype: PageDto })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'page' })],
      });
    }
  });
});
