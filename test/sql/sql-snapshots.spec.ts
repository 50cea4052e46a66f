import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSnapshot, SQL_SNAPSHOTS } from './statement-catalog';

const ROOT = join(__dirname, '..', '..');

describe('SQL snapshots', () => {
  it.each(SQL_SNAPSHOTS.map((file) => [file.path, file] as const))('%s lists every statement as the repository builds it', (path, file) => {
    // `npm run sql:snapshots` writes the file again; the diff is the query change to review.
    expect(readFileSync(join(ROOT, path), 'utf8')).toBe(renderSnapshot(file));
  });

  it('gives every snapshot its own file', () => {
    const paths = SQL_SNAPSHOTS.map((file) => file.path);
    expect(new Set(paths).size).toBe(paths.length);
  });
});
