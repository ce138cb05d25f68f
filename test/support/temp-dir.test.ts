import { expect } from 'chai';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { tempDir } from './temp-dir.js';

describe('test support: tempDir()', () => {
  it('makes a new directory under the temporary directory, named by the prefix', () => {
    using dir = tempDir('plant-store-temp-dir-test-');
    expect(dirname(dir.path)).to.equal(tmpdir());
    expect(basename(dir.path)).to.match(/^plant-store-temp-dir-test-\w{6}$/);
    expect(existsSync(dir.path)).to.equal(true);
  });

  it('declared with using, is removed with its files when the block ends, even by a throw', () => {
    let path = '';
    expect(() => {
      using dir = tempDir('plant-store-temp-dir-test-');
      path = dir.path;
      writeFileSync(join(path, 'file'), 'text');
      throw new Error('a failed assertion');
    }).to.throw('a failed assertion');
    expect(path).to.not.equal('');
    expect(existsSync(path)).to.equal(false);
  });

  it('remove() may be called again', () => {
    const dir = tempDir('plant-store-temp-dir-test-');
    dir.remove();
    dir.remove();
    expect(existsSync(dir.path)).to.equal(false);
  });
});
