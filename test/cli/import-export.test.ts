import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, type CliServer } from '../support/cli-process.js';
import { HttpClient } from '../support/http-client.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

describe('plant-store export and import', function () {
  this.timeout(60_000);
  let work: TempDir;
  let server: CliServer | undefined;
  const dir = (name: string) => join(work.path, name);
  const file = (name: string, text: string) => {
    writeFileSync(dir(name), text);
    return dir(name);
  };
  const plantStore = (dataDir: string, ...args: string[]) => runCli({ PLANT_STORE_DATA_DIR: dir(dataDir) }, args);
  beforeEach(() => {
    work = tempDir('plant-store-io-');
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    work.remove();
  });

  // Ids out of order, tags and none, text JSON must escape, the largest id.
  const plants = [
    ...Array.from({ length: 2500 }, (_, i) => ({ id: 5000 - i * 2, name: `plant ${i}`, ...(i % 3 === 0 && { tag: `tag${i % 7}` }) })),
    { id: 9007199254740991, name: 'quote " backslash \\ 🌵\nnewline', tag: 'ünï' },
  ];
  const jsonLines = (list: object[]) => list.map((plant) => JSON.stringify(plant)).join('\n') + '\n';
  const ascending = [...plants].sort((a, b) => a.id - b.id);

  it('export then import into a fresh directory gives the same plants, exported as JSON Lines by ascending id', async () => {
    const imported = await plantStore('a', 'import', file('in.jsonl', jsonLines(plants)));
    expect(imported.code, imported.stderr).to.equal(0);
    expect(imported.stdout).to.match(/^plant-store import: 2501 created, 0 skipped \(id already taken\), 0 invalid, from .*in\.jsonl into disk /);

    const exported = await plantStore('a', 'export', '--output', dir('out.jsonl'));
    expect(exported.code, exported.stderr).to.equal(0);
    expect(readFileSync(dir('out.jsonl'), 'utf8')).to.equal(jsonLines(ascending));

    expect((await plantStore('b', 'import', dir('out.jsonl'))).code).to.equal(0);
    const again = await plantStore('b', 'export');
    expect(again.code).to.equal(0);
    expect(again.stdout).to.equal(jsonLines(ascending));
    expect(again.stderr).to.contain('plant-store export: 2501 plants');
  });

  it('export counts in words: "1 plant", then "2 plants"', async () => {
    expect((await plantStore('a', 'import', file('one.jsonl', jsonLines([{ id: 1, name: 'Monstera' }])))).code).to.equal(0);
    const one = await plantStore('a', 'export');
    expect(one.code, one.stderr).to.equal(0);
    expect(one.stderr).to.match(/^plant-store export: 1 plant from disk .* written to standard output\n$/);
    expect((await plantStore('a', 'import', file('two.jsonl', jsonLines([{ id: 2, name: 'Fern' }])))).code).to.equal(0);
    const two = await plantStore('a', 'export', '--output', dir('out.jsonl'));
    expect(two.code, two.stderr).to.equal(0);
    expect(two.stderr).to.match(/^plant-store export: 2 plants from disk .* written to .*out\.jsonl\n$/);
  });

  it('importing the same file again reports every plant as skipped and exits 0', async () => {
    const input = file('in.jsonl', jsonLines(plants));
    await plantStore('a', 'import', input);
    const second = await plantStore('a', 'import', input);
    expect(second.code).to.equal(0);
    expect(second.stdout).to.contain('0 created, 2501 skipped (id already taken), 0 invalid');
  });

  it('bad lines are reported by number with the API messages, the good ones imported, exit 1', async () => {
    const input = file(
      'mixed.jsonl',
      ['{"id":1,"name":"ok"}', '{"id":2,"name":""}', '', 'not json', '{"id":"3","name":"x"}', '[1]', '{"id":4,"name":"ok too","tag":null}'].join('\n'),
    );
    const result = await plantStore('a', 'import', input);
    expect(result.code).to.equal(1);
    expect(result.stderr.trim().split('\n')).to.deep.equal([
      `${input}:2: name must be a string of 1 to 200 characters, not only whitespace`,
      `${input}:4: the plant is not valid JSON`,
      `${input}:5: id must be an integer from 1 to 9007199254740991`,
      `${input}:6: the plant must be a JSON object`,
    ]);
    expect(result.stdout).to.contain('2 created, 0 skipped (id already taken), 4 invalid');
    expect((await plantStore('a', 'export')).stdout).to.equal(jsonLines([{ id: 1, name: 'ok' }, { id: 4, name: 'ok too' }]));
  });

  it('a line whose bytes are not UTF-8 is reported, not stored changed; a malformed array is reported where it goes wrong (exit 1 both)', async () => {
    const input = dir('latin1.jsonl');
    writeFileSync(input, Buffer.concat([Buffer.from('{"id":1,"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"id":2,"name":"café"}\n')]));
    const result = await plantStore('a', 'import', input);
    expect([result.code, result.stderr.trim()]).to.deep.equal([1, `${input}:1: the plant is not valid UTF-8`]);
    expect((await plantStore('a', 'export')).stdout).to.equal(jsonLines([{ id: 2, name: 'café' }]));
    const broken = file('broken.json', '[{"id":10,"name":"a"}}');
    const refused = await plantStore('b', 'import', broken);
    expect([refused.code, refused.stderr.trim()]).to.deep.equal([1, `${broken}:1: the JSON document is malformed here ("}" where "]" should be); the rest of the file is not read`]);
    expect(refused.stdout).to.contain('0 created, 0 skipped (id already taken), 1 invalid');
  });

  it("a json-server db.json imports its plants and ignores its other collections", async () => {
    const db = { plants: [{ id: 1, name: 'Monstera', tag: 'tropical' }, { id: 2, name: 'Fern' }], comments: [{ id: 1, body: 'hi', postId: 1 }], profile: { name: 'typicode' } };
    const result = await plantStore('a', 'import', file('db.json', JSON.stringify(db, null, 2)));
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('2 created, 0 skipped');
    expect((await plantStore('a', 'export')).stdout).to.equal(jsonLines(db.plants));
  });

  it('a JSON array imports too', async () => {
    const result = await plantStore('a', 'import', file('plants.json', JSON.stringify(plants, null, 1)));
    expect(result.code, result.stderr).to.equal(0);
    expect((await plantStore('a', 'export')).stdout).to.equal(jsonLines(ascending));
  });

  it('while a server holds the directory: import exits 1 naming it, export reads it', async () => {
    const token = 'import-export-token-0123456789abc';
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_DATA_DIR: dir('a') });
    expect((await (await HttpClient.connect(server.url, token)).create(3, 'served')).status).to.equal(200);
    const imported = await plantStore('a', 'import', file('in.jsonl', jsonLines(plants)));
    expect(imported.code).to.equal(1);
    expect(imported.stderr).to.contain(`plant-store import: data directory ${dir('a')} is in use by process ${server.child.pid}`);
    const exported = await plantStore('a', 'export');
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.equal(jsonLines([{ id: 3, name: 'served' }]));
  });

  it('a missing input file or memory storage is refused with one line', async () => {
    const missing = await plantStore('a', 'import', dir('nope.jsonl'));
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.equal(`plant-store import: cannot read ${dir('nope.jsonl')} (ENOENT)\n`);
    const memory = await runCli({}, ['export', '--storage', 'memory']);
    expect(memory.code).to.equal(2);
    expect(memory.stderr).to.contain('export needs disk or mongodb storage');
  });
});
