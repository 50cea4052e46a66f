import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { isRefusedData, storableJson, storableText } from './storable-json';

describe('storableText', () => {
  it('replaces NUL and lone surrogates with U+FFFD and keeps surrogate pairs', () => {
    expect(storableText('ok\u0000')).toBe('ok\uFFFD');
    expect(storableText('a\uD800b')).toBe('a\uFFFDb');
    expect(storableText('a\uDC00b')).toBe('a\uFFFDb');
    expect(storableText('\uDC00\uD800')).toBe('\uFFFD\uFFFD');
    expect(storableText('smile \uD83D\uDE00')).toBe('smile \uD83D\uDE00');
    // The six characters of a JSON escape are text like any other.
    expect(storableText('{"a":"\\ud800"}')).toBe('{"a":"\\ud800"}');
  });
});

describe('storableJson', () => {
  it('makes every string of a value storable, keys included, and leaves the rest as it is', () => {
    const attempt = {
      status_code: 200,
      error: null,
      response_body: 'ok\u0000',
      response_headers: { 'x-\uD800': 'v\u0000' },
      list: ['\uDFFF', 1, true],
    };
    expect(storableJson(attempt)).toEqual({
      status_code: 200,
      error: null,
      response_body: 'ok\uFFFD',
      response_headers: { 'x-\uFFFD': 'v\uFFFD' },
      list: ['\uFFFD', 1, true],
    });
  });
});

describe('isRefusedData', () => {
  const failed = (code: string | undefined): QueryFailedError => new QueryFailedError('UPDATE ...', [], Object.assign(new Error('refused'), { code }));

  it('is true for data exceptions, constraint violations and program limits', () => {
    expect(isRefusedData(failed('22P05'))).toBe(true);
    expect(isRefusedData(failed('22021'))).toBe(true);
    expect(isRefusedData(failed('23514'))).toBe(true);
    expect(isRefusedData(failed('54000'))).toBe(true);
  });

  it('is false for a statement timeout, a lost connection or an error without SQLSTATE', () => {
    expect(isRefusedData(failed('57014'))).toBe(false);
    expect(isRefusedData(failed('08006'))).toBe(false);
    expect(isRefusedData(failed(undefined))).toBe(false);
    expect(isRefusedData(new Error('Connection terminated unexpectedly'))).toBe(false);
  });

  it('reads the error pg throws itself, as statements sent straight to the pool do', () => {
    const refused = (code: string): DatabaseError => Object.assign(new DatabaseError('refused', 0, 'error'), { code });
    expect(isRefusedData(refused('22P05'))).toBe(true);
    expect(isRefusedData(refused('23514'))).toBe(true);
    expect(isRefusedData(refused('57014'))).toBe(false);
    expect(isRefusedData(Object.assign(new Error('connect ECONNREFUSED'), { code: '22000' }))).toBe(false);
  });
});
