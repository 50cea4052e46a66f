import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnvFile } from './env-file';

describe('loadEnvFile', () => {
  const directory = mkdtempSync(join(tmpdir(), 'rms-env-file-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  function envFile(text: string): string {
    const path = join(directory, `${Math.random().toString(36).slice(2)}.env`);
    writeFileSync(path, text);
    return path;
  }

  it('adds what the environment does not set, and leaves what it sets, empty values included', () => {
    const env: NodeJS.ProcessEnv = { PORT: '3411', LOG_FORMAT: '' };
    loadEnvFile(envFile('# a comment\nPORT=3000\nLOG_FORMAT=json\nNODE_ENV=development\n'), env);
    expect(env).toEqual({ PORT: '3411', LOG_FORMAT: '', NODE_ENV: 'development' });
  });

  it('reads values as node --env-file does: quotes, spaces, an export prefix', () => {
    const env: NodeJS.ProcessEnv = {};
    loadEnvFile(envFile('QUOTED="two words"\nexport EXPORTED=yes\nSPACED = value  \n'), env);
    expect(env).toEqual({ QUOTED: 'two words', EXPORTED: 'yes', SPACED: 'value' });
  });

  it('adds nothing when the file does not exist', () => {
    const env: NodeJS.ProcessEnv = {};
    loadEnvFile(join(directory, 'missing.env'), env);
    expect(env).toEqual({});
  });

  it('fails when the file exists but cannot be read', () => {
    expect(() => loadEnvFile(directory, {})).toThrow(/EISDIR/);
  });
});
