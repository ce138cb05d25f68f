import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliNodeFlags } from '../support/cli-node-flags.js';
import { projectRoot } from '../support/project-root.js';

describe('node flags of the server command', () => {
  it('npm start runs node with the same flags as the plant-store command (its shebang)', () => {
    const flags = cliNodeFlags();
    const { scripts } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['start']).to.equal(['node', ...flags, 'dist/composition/cli.js'].join(' '));
  });
});
