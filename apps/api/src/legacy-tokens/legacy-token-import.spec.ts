import type { LegacyTokenImport, LegacyTokenImportResult, LegacyTokenRepository } from './legacy-token.repository';
import { importLegacyTokenFile, parseLegacyTokenFile } from './legacy-token-import';

describe('parseLegacyTokenFile', () => {
  it('reads token,email lines, skipping a header and blank lines', () => {
    const { entries, problems } = parseLegacyTokenFile('token,email\r\nabc,a@example.com\n\n def , b@example.com \n');
    expect(problems).toEqual([]);
    expect(entries).toEqual([
      { line: 2, token: 'abc', email: 'a@example.com' },
      { line: 4, token: 'def', email: 'b@example.com' },
    ]);
  });

  it('reports each bad line with its number and keeps the good ones', () => {
    const text = ['t1,a@example.com', 'only-one-field', 't2,b@example.com,extra', ',c@example.com', 't3,not-an-email', 't1,d@example.com', 't4,e@example.com'].join('\n');
    const { entries, problems } = parseLegacyTokenFile(text);
    expect(entries.map((entry) => entry.line)).toEqual([1, 7]);
    expect(problems).toEqual([
      { line: 2, reason: 'expected "token,email", found 1 fields' },
      { line: 3, reason: 'expected "token,email", found 3 fields' },
      { line: 4, reason: 'the token is empty, too long or contains spaces' },
      { line: 5, reason: 'the email is not a valid address' },
      { line: 6, reason: 'the token repeats line 1' },
    ]);
  });
});

describe('importLegacyTokenFile', () => {
  it('stores hashes, never tokens, and reports unknown emails by line', async () => {
    const seen: LegacyTokenImport[] = [];
    const repository = {
      importBatch: (rows: LegacyTokenImport[]): Promise<LegacyTokenImportResult> => {
        seen.push(...rows);
        return Promise.resolve({ inserted: new Set([rows[0].tokenHash]), unknownEmails: new Set(['nobody@example.com']) });
      },
    } as unknown as LegacyTokenRepository;
    const report = await importLegacyTokenFile('secret-1,a@example.com\nsecret-2,Nobody@example.com\nsecret-3,b@example.com', repository);
    expect(seen.map((row) => row.tokenHash)).toEqual(seen.map(() => expect.stringMatching(/^[0-9a-f]{64}$/)));
    expect(JSON.stringify(seen)).not.toContain('secret-');
    expect(report).toEqual({
      imported: 1,
      alreadyPresent: 1,
      problems: [{ line: 2, reason: 'no account has the email Nobody@example.com' }],
    });
  });
});
