import type { LegacyTokenImport, LegacyTokenRepository } from './legacy-token.repository';
import { hashSecret } from '../auth/opaque-secret';

export interface LegacyTokenLine {
  line: number;
  token: string;
  email: string;
}

export interface LineProblem {
  line: number;
  reason: string;
}

export interface LegacyTokenImportReport {
  imported: number;
  /** Lines whose token was stored by an earlier import. */
  alreadyPresent: number;
  problems: LineProblem[];
}

const TOKEN = /^\S{1,1024}$/;
const EMAIL = /^[^\s@,]+@[^\s@,]+$/;
const HEADER = 'token,email';
const BATCH_SIZE = 1000;

/**
 * Reads `token,email` lines (numbered from 1). Blank lines and a `token,email` header are
 * skipped; every other line either becomes an entry or a problem naming its line.
 */
export function parseLegacyTokenFile(text: string): { entries: LegacyTokenLine[]; problems: LineProblem[] } {
  const entries: LegacyTokenLine[] = [];
  const problems: LineProblem[] = [];
  const firstLineOf = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = index + 1;
    const content = lines[index].trim();
    if (content === '' || (line === 1 && content.toLowerCase() === HEADER)) continue;
    const fields = content.split(',').map((field) => field.trim());
    const reason = lineProblem(fields, firstLineOf);
    if (reason) {
      problems.push({ line, reason });
      continue;
    }
    const [token, email] = fields;
    firstLineOf.set(token, line);
    entries.push({ line, token, email });
  }
  return { entries, problems };
}

function lineProblem(fields: string[], firstLineOf: Map<string, number>): string | null {
  if (fields.length !== 2) return `expected "token,email", found ${fields.length} fields`;
  const [token, email] = fields;
  if (!TOKEN.test(token)) return 'the token is empty, too long or contains spaces';
  if (email.length > 255 || !EMAIL.test(email)) return 'the email is not a valid address';
  const first = firstLineOf.get(token);
  return first === undefined ? null : `the token repeats line ${first}`;
}

/** Imports a file's tokens, hashed, in batches; a bad line is reported and the others imported. */
export async function importLegacyTokenFile(text: string, repository: LegacyTokenRepository): Promise<LegacyTokenImportReport> {
  const { entries, problems } = parseLegacyTokenFile(text);
  const report: LegacyTokenImportReport = { imported: 0, alreadyPresent: 0, problems };
  for (let start = 0; start < entries.length; start += BATCH_SIZE) {
    const batch = entries.slice(start, start + BATCH_SIZE).map((entry) => ({ ...entry, tokenHash: hashSecret(entry.token) }));
    const rows: LegacyTokenImport[] = batch.map(({ tokenHash, email }) => ({ tokenHash, email }));
    const result = await repository.importBatch(rows);
    for (const entry of batch) {
      if (result.unknownEmails.has(entry.email.toLowerCase())) {
        problems.push({ line: entry.line, reason: `no account has the email ${entry.email}` });
      } else if (result.inserted.has(entry.tokenHash)) {
        report.imported += 1;
      } else {
        report.alreadyPresent += 1;
      }
    }
  }
  problems.sort((a, b) => a.line - b.line);
  return report;
}
