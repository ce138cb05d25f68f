import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { dataDirFailure } from '../../adapters/storage/disk/data-dir.js';
import { runCli } from '../support/cli-process.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const token = 'start-up-token-0123456789abcdef';

/** Runs the server command expecting it to stop at once: exit 1 and one line on standard error. */
async function refusal(env: Record<string, string>, args: string[] = []): Promise<{ line: string; seconds: number }> {
  const started = performance.now();
  const result = await runCli({ PLANT_STORE_TOKENS: token, ...env }, args);
  const seconds = (performance.now() - started) / 1000;
  expect(result.code, result.stderr).to.equal(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).to.have.length(1);
  return { line: lines[0]!, seconds };
}

describe('the server command when its data directory or port cannot be used', () => {
  let scratch: TempDir;
  beforeEach(() => {
    scratch = tempDir('plant-store-start-up-');
  });
  afterEach(() => scratch.remove());

  it('a data directory that is a file: one line saying it is not a directory', async () => {
    const file = join(scratch.path, 'plants');
    writeFileSync(file, 'not a directory');
    const { line } = await refusal({ PLANT_STORE_DATA_DIR: file });
    expect(line).to.equal(`plant-store: failed to start: data directory ${file}: it is not a directory`);
  });

  it('a data directory below a file: one line naming the file in the way', async () => {
    const file = join(scratch.path, 'plants');
    writeFileSync(file, 'in the way');
    const { line } = await refusal({ PLANT_STORE_DATA_DIR: join(file, 'data') });
    expect(line).to.equal(`plant-store: failed to start: data directory ${join(file, 'data')}: ${file} is not a directory`);
  });

  it('a data directory that cannot be made (/proc/plants): a line naming it within 5 s, no hang', async () => {
    const { line, seconds } = await refusal({ PLANT_STORE_DATA_DIR: '/proc/plants' });
    expect(line).to.match(/^plant-store: failed to start: data directory \/proc\/plants cannot be created \(at \/proc\/plants\): /);
    expect(seconds).to.be.below(5);
  });

  it('a permission refused says so in words, naming the directory (checked on the message: as root, nothing is refused)', () => {
    const denied = Object.assign(new Error("EACCES: permission denied, mkdir '/srv/plants'"), { code: 'EACCES' });
    expect(dataDirFailure('/srv/plants/data', 'cannot be created (at /srv/plants)', denied).message).to.equal(
      'data directory /srv/plants/data cannot be created (at /srv/plants): permission denied',
    );
  });

  it('a port in use: one line naming the port and the setting to change', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { line } = await refusal({ PORT: String(port), PLANT_STORE_STORAGE: 'memory' });
      expect(line).to.equal(`plant-store: failed to start: port ${port} on 127.0.0.1 is already in use; choose another with --port / PORT`);
    } finally {
      taken.close();
    }
  });
});
