/**
 * `npm run docs`: writes the README's configuration tables from the settings the platform, its
 * mechanisms and the areas declare (`settingsSection`), so the README lists every variable
 * with its default and meaning exactly as the code reads it. `src/config.test.ts` fails when the
 * README is out of date.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { areas } from '../src/areas.ts';
import { settingsDocumentation } from '../src/config.ts';
import { settingsSections } from '../src/platform/area.ts';

const START = '<!-- settings: written by `npm run docs` from the declared settings; do not edit by hand -->';
const END = '<!-- /settings -->';

/** The tables, one per owner (the platform first), as the README holds them between the markers. */
export function settingsTables(): string {
  const rows = settingsDocumentation(settingsSections(areas));
  const owners = [...new Set(rows.map((row) => row.owner))];
  const tables = owners.map((owner) => {
    const lines = rows
      .filter((row) => row.owner === owner)
      .map((row) => `| \`${row.name}\` | ${row.default === '' ? '(unset)' : `\`${row.default}\``} | ${row.description} |`);
    return [`**${owner}**`, '', '| Variable | Default | Meaning |', '|---|---|---|', ...lines].join('\n');
  });
  return [START, '', ...tables.flatMap((table) => [table, '']), END].join('\n');
}

/** The README's current tables, or undefined when the markers are missing. */
export function readmeTables(readme: string): string | undefined {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  return start < 0 || end < start ? undefined : readme.slice(start, end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readme = fs.readFileSync('README.md', 'utf8');
  const current = readmeTables(readme);
  if (!current) throw new Error(`README.md has no ${START} ... ${END} block`);
  fs.writeFileSync('README.md', readme.replace(current, settingsTables()));
  console.log('README.md: configuration tables written');
}
