/**
 * Writes the SQL snapshot of every repository (test/sql/statement-catalog.ts) beside it. Run it
 * after changing a statement and commit the changed .sql files with the change.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSnapshot, SQL_SNAPSHOTS } from '../test/sql/statement-catalog';

const root = join(__dirname, '..');
for (const file of SQL_SNAPSHOTS) {
  writeFileSync(join(root, file.path), renderSnapshot(file));
  process.stdout.write(`${file.path}\n`);
}
