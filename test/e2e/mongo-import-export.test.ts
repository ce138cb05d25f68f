import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli-process.js';
import { withDatabase } from '../support/mongo-uri.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';

describe('plant-store export and import on MongoDB', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let work: TempDir | undefined;
  const name = `plant_store_import_${randomBytes(4).toString('hex')}`;
  before(async function () {
    database = await requireDatabase(this);
    work = tempDir('plant-store-mongo-io-');
  });
  after(async () => {
    work?.remove();
    if (database) await dropDatabase(database.uri, name);
  });

  it('imports (skipping taken ids on a second run) and exports by ascending id', async () => {
    const env = { MONGODB_URI: withDatabase(database.uri, name) };
    const plants = Array.from({ length: 1500 }, (_, i) => ({ id: 3000 - 2 * i, name: `p${i}`, ...(i % 2 === 0 && { tag: 'even' }) }));
    const file = join(work!.path, 'plants.jsonl');
    writeFileSync(file, plants.map((plant) => JSON.stringify(plant)).join('\n'));

    const first = await runCli(env, ['import', file]);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.match(/1500 created, 0 skipped \(id already taken\), 0 invalid, from .* into mongodb /);
    const second = await runCli(env, ['import', file]);
    expect(second.stdout).to.contain('0 created, 1500 skipped');

    const exported = await runCli(env, ['export']);
    expect(exported.code, exported.stderr).to.equal(0);
    const sorted = [...plants].sort((a, b) => a.id - b.id);
    expect(exported.stdout).to.equal(sorted.map((plant) => JSON.stringify(plant)).join('\n') + '\n');
  });
});
