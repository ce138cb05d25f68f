import { settingGroups } from '../../composition/config/settings.js';
import { shownDefaultOf, type Setting } from '../../composition/config/setting.js';

/** Where the generated table starts and ends in docs/settings.md; the prose around it is written by hand. */
export const TABLE_BEGIN = '<!-- settings-table:begin (generated from the settings rows in composition/config/; do not edit by hand) -->';
export const TABLE_END = '<!-- settings-table:end -->';

/** The command that rewrites the table, for a test that finds it out of date. */
export const UPDATE_COMMAND = 'npm run build && UPDATE_DOCS=1 npx mocha --no-config dist/test/docs/settings-table.test.js';

/**
 * The full settings table: one section per group of the options tree (`http`, `access`, …),
 * one line per row, in the order `--help` lists them. Each cell is what the row holds: its
 * flag, its variable, its default (as text), its help line and the option it fills.
 */
export function renderSettingsTable(): string {
  const sections = Object.entries(settingGroups).map(([group, { rows }]) =>
    [`### ${group}`, '', '| flag | variable | default | meaning | option |', '|---|---|---|---|---|', ...Object.values(rows as Record<string, Setting<unknown>>).map(line)].join('\n'),
  );
  return sections.join('\n\n');
}

function line(row: Setting<unknown>): string {
  const cells = [row.flag ? code(`--${row.flag}`) : '—', code(row.env), shownDefaultOf(row) ? code(shownDefaultOf(row)) : '—', text(row.help), code(row.option)];
  return `| ${cells.join(' | ')} |`;
}

const code = (value: string) => `\`${value.replaceAll('|', '\\|')}\``;
// Help lines are plain text: `<base64>` must not be read as an HTML tag, nor `|` as a cell's end.
const text = (value: string) => value.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The document with the table between its markers replaced by `table`; throws when a marker is missing. */
export function withTable(document: string, table: string): string {
  const begin = document.indexOf(TABLE_BEGIN);
  const end = document.indexOf(TABLE_END);
  if (begin === -1 || end === -1 || end < begin) throw new Error(`docs/settings.md must hold the markers ${TABLE_BEGIN} and ${TABLE_END}, in that order`);
  return `${document.slice(0, begin + TABLE_BEGIN.length)}\n\n${table}\n\n${document.slice(end)}`;
}
