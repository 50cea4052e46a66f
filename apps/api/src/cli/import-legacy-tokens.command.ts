import { readFile } from 'node:fs/promises';
import { Command, CommandRunner, Option } from 'nest-commander';
import { LegacyTokenRepository } from '../legacy-tokens/legacy-token.repository';
import { importLegacyTokenFile } from '../legacy-tokens/legacy-token-import';
import { CliDataModule } from './cli-data.module';
import { CommandDependencies } from './command-dependencies';

interface ImportOptions {
  file: string;
}

/**
 * `import-legacy-tokens --file F`: stores the SHA-256 of each token of a `token,email` file,
 * each exchangeable once at POST /v2/auth/migrate. Bad lines are listed on stderr with their
 * numbers and the others imported. Exit code 0 when at least one token was imported or nothing
 * was wrong, 1 when the file cannot be read or no line of it could be imported.
 */
@Command({
  name: 'import-legacy-tokens',
  description: 'Import tokens of the earlier API version from a file of "token,email" lines',
})
export class ImportLegacyTokensCommand extends CommandRunner {
  constructor(private readonly dependencies: CommandDependencies) {
    super();
  }

  @Option({ flags: '-f, --file <path>', description: 'File of "token,email" lines', required: true })
  parseFile(value: string): string {
    return value;
  }

  async run(_params: string[], options: ImportOptions): Promise<void> {
    let text: string;
    try {
      text = await readFile(options.file, 'utf8');
    } catch (error) {
      process.stderr.write(`Cannot read ${options.file}: ${(error as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
    const tokens = await this.dependencies.get(CliDataModule, LegacyTokenRepository);
    const report = await importLegacyTokenFile(text, tokens);
    for (const problem of report.problems) process.stderr.write(`line ${problem.line}: ${problem.reason}\n`);
    process.stdout.write(
      `Imported ${report.imported} legacy tokens; ${report.alreadyPresent} were already imported; ${report.problems.length} lines skipped.\n`,
    );
    process.exitCode = report.imported > 0 || report.problems.length === 0 ? 0 : 1;
  }
}
