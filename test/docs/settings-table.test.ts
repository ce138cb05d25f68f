import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingRows } from '../../composition/config/settings.js';
import { projectRoot } from '../support/project-root.js';
import { renderSettingsTable, UPDATE_COMMAND, withTable } from './settings-table.js';

const settingsDoc = join(projectRoot, 'docs', 'settings.md');

describe('docs/settings.md, the full settings table', () => {
  it('holds the table generated from the settings rows (UPDATE_DOCS=1 rewrites it)', () => {
    const document = readFileSync(settingsDoc, 'utf8');
    const expected = withTable(document, renderSettingsTable());
    if (document !== expected && process.env['UPDATE_DOCS'] === '1') {
      writeFileSync(settingsDoc, expected);
      return;
    }
    expect(document === expected, `docs/settings.md differs from the settings rows; rewrite its table with:\n  ${UPDATE_COMMAND}\n`).to.equal(true);
  });

  it('has a line for every variable and every flag', () => {
    const table = renderSettingsTable();
    for (const row of settingRows) {
      expect(table).to.include(`\`${row.env}\``);
      if (row.flag) expect(table).to.include(`\`--${row.flag}\``);
    }
  });
});
