import { shownDefaultOf } from './setting.js';
import { settingRows } from './settings.js';

/** The --help text, generated from the settings table so it cannot drift from it. */
export function helpText(): string {
  const rows = [
    ['flag', 'variable', 'meaning'],
    ...settingRows.map((row) => [row.flag ? `--${row.flag} <value>` : '', row.env, `${row.help}${shownDefaultOf(row) ? ` (default ${shownDefaultOf(row)})` : ''}`]),
    ['--version', '', 'print the version and exit'],
    ['--help', '', 'print this and exit'],
  ];
  // Columns as wide as their longest entry, two spaces apart: a long flag never runs into its variable.
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)) + 2);
  return [
    'Usage: plant-store [options]',
    '',
    'Serves the Plant Store HTTP API. Every option can also be set by its environment variable;',
    'a flag wins over its variable.',
    '',
    ...rows.map(([flag, variable, meaning]) => `  ${flag!.padEnd(widths[0]!)}${variable!.padEnd(widths[1]!)}${meaning}`),
  ].join('\n');
}

/** What the command line asks for before any configuration is read. */
export function commandOf(argv: readonly string[]): 'help' | 'version' | 'serve' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  if (argv.includes('--version')) return 'version';
  return 'serve';
}
