import fs from 'node:fs';
import path from 'node:path';
import { type Config, loadConfig } from '../../config.ts';
import { backup } from './backup.ts';
import { copy } from './copy.ts';
import { restore } from './restore.ts';

/** The release a backup names: package.json's version (three folders up, from src/ and from dist/ alike). */
const RELEASE = (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

export interface OperatingOptions {
  filesOnly: boolean;
  dataDir?: string;
  to?: string;
  filesTo?: string;
}

/**
 * `cairn backup`, `cairn restore` and `cairn copy`: run before anything opens the database, since
 * each decides how to open it (a backup of a serving PGlite asks that server; a restore fills a
 * new one). Answers false for any other command.
 */
export async function runOperatingCommand(
  command: string,
  args: readonly string[],
  options: OperatingOptions,
  config: Config,
  sections: Parameters<typeof loadConfig>[1],
  usage: (message: string) => never,
): Promise<boolean> {
  switch (command) {
    case 'backup': {
      const file = args[0] ?? usage('backup <file>');
      const started = performance.now();
      const summary = await backup(config, file, { filesOnly: options.filesOnly, release: RELEASE });
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `Backed up ${summary.tables} tables (${summary.rows} rows) and ${summary.files} files to ${summary.file}: ` +
          `${summary.bytes} bytes in ${seconds.toFixed(1)} s\nTime: ${summary.timings}`,
      );
      return true;
    }
    case 'restore': {
      const file = args[0] ?? usage('restore <file> [--data-dir D]');
      // --data-dir: the installation's directory (its embedded database unless DATABASE_URL, its local files).
      const target = options.dataDir
        ? loadConfig({ ...config.env, CAIRN_DATA_DIR: path.resolve(options.dataDir) }, sections)
        : config;
      const summary = await restore(target, file);
      console.log(
        `Restored ${summary.rows} rows and ${summary.files} files at migration ${summary.migration}, checked against the manifest` +
          (summary.upgradedBy.length ? `; then upgraded by ${summary.upgradedBy.join(', ')}` : '') +
          `\nTime: ${summary.timings}`,
      );
      return true;
    }
    case 'copy': {
      const to = options.to ?? usage('copy --to postgres://… [--files-to s3://bucket?…]');
      const summary = await copy(config, to, options.filesTo);
      console.log(
        `${summary.resumed ? 'Resumed and finished' : 'Finished'} the copy: ${summary.tables} tables (${summary.rows} rows)` +
          `${options.filesTo ? ` and ${summary.files} files` : ''}, checked row by row` +
          `${options.filesTo ? ' and blob by blob' : ''}. Serve from it with DATABASE_URL=${redacted(to)}` +
          `${options.filesTo ? ' and the CAIRN_S3_* settings of the bucket' : ` (files stay in ${config.dataDir}/files)`}.` +
          `\nTime: ${summary.timings}`,
      );
      return true;
    }
    default:
      return false;
  }
}

/** A URL without its password, for a message. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
