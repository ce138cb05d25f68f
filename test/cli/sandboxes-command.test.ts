import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, type CliServer } from '../support/cli-process.js';
import { HttpClient } from '../support/http-client.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const token = 'sandboxes-command-token-0123456789';

describe('plant-store sandboxes, and export / import --sandbox', function () {
  this.timeout(60_000);
  let work: TempDir;
  let server: CliServer | undefined;
  const dataDir = () => join(work.path, 'data');
  // The server's own settings, as an operator's environment would hold them: the lifetime sets the expiry shown.
  const plantStore = (...args: string[]) => runCli({ PLANT_STORE_DATA_DIR: dataDir(), PLANT_STORE_SANDBOX_SIGNUP: 'on', PLANT_STORE_SANDBOX_TTL: '1h' }, args);
  beforeEach(() => {
    work = tempDir('plant-store-sandboxes-cli-');
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    work.remove();
  });

  it('lists the self-service sandboxes a server signed up (plants, last use, expiry), ends one, and exports or imports one sandbox', async () => {
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_DATA_DIR: dataDir(), PLANT_STORE_SANDBOX_SIGNUP: 'on', PLANT_STORE_SANDBOX_TTL: '1h' });
    const anonymous = await HttpClient.connect(server.url, token);
    const signUps = [];
    for (let i = 0; i < 2; i++) signUps.push((await anonymous.post('/sandboxes', { token: null })).body as { sandbox: string; token: string });
    const first = await HttpClient.connect(server.url, signUps[0]!.token);
    for (const id of [1, 2, 3]) expect((await first.create(id)).status).to.equal(200);
    await server.stop('SIGTERM');
    server = undefined;

    const listed = await plantStore('sandboxes', 'list');
    expect(listed.code, listed.stderr).to.equal(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^sandbox\s+plants\s+last use\s+expires$/);
    const rows = Object.fromEntries(lines.slice(1, -1).map((line) => line.split(/\s+/)).map(([name, plants, lastUse, expires]) => [name, { plants, lastUse, expires }]));
    expect(Object.keys(rows).sort()).to.deep.equal(signUps.map((s) => s.sandbox).sort());
    expect(rows[signUps[0]!.sandbox]!.plants).to.equal('3');
    expect(Date.parse(rows[signUps[0]!.sandbox]!.expires!) - Date.parse(rows[signUps[0]!.sandbox]!.lastUse!)).to.equal(3_600_000);
    expect(lines.at(-1)).to.equal('2 sandboxes');

    const exported = await plantStore('export', '--sandbox', signUps[0]!.sandbox);
    expect(exported.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).to.deep.equal([1, 2, 3]);
    expect((await plantStore('export')).stdout, 'the default sandbox holds none of them').to.equal('');
    const input = join(work.path, 'in.jsonl');
    writeFileSync(input, '{"id": 1, "name": "imported"}\n');
    const imported = await plantStore('import', input, '--sandbox', signUps[1]!.sandbox);
    expect(imported.code, imported.stderr).to.equal(0);
    expect((await plantStore('export', '--sandbox', signUps[1]!.sandbox)).stdout.trim()).to.equal('{"id":1,"name":"imported"}');
    expect(JSON.parse((await plantStore('export', '--sandbox', signUps[0]!.sandbox)).stdout.split('\n')[0]!).name, 'the same id elsewhere untouched').to.equal('plant 1');
    const refused = await plantStore('export', '--sandbox', 'Not-A-Name');
    expect([refused.code, refused.stderr.trim()]).to.deep.equal([2, 'plant-store export: --sandbox "Not-A-Name": a sandbox name is 1 to 64 of a-z, 0-9 and -']);

    const ended = await plantStore('sandboxes', 'delete', signUps[0]!.sandbox);
    expect([ended.code, ended.stdout.trim()]).to.deep.equal([0, `plant-store sandboxes: ${signUps[0]!.sandbox} ended: its token no longer works, its plants are removed`]);
    expect((await plantStore('sandboxes', 'delete', signUps[0]!.sandbox)).code, 'a second time: none by that name').to.equal(1);
    expect((await plantStore('export', '--sandbox', signUps[0]!.sandbox)).stdout).to.equal('');
    expect((await plantStore('sandboxes', 'list')).stdout.trim().split('\n').at(-1)).to.equal('1 sandbox');

    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_DATA_DIR: dataDir(), PLANT_STORE_SANDBOX_SIGNUP: 'on' });
    expect((await (await HttpClient.connect(server.url, signUps[0]!.token)).get('/plants')).status, 'the ended sandbox\'s token').to.equal(401);
    expect((await (await HttpClient.connect(server.url, signUps[1]!.token)).get('/plants')).status, 'the other still works after a restart').to.equal(200);
  });

  it('leaves a sandbox that is no self-service one as it was: a static token\'s keeps its plants (exit 1)', async () => {
    const input = join(work.path, 'in.jsonl');
    writeFileSync(input, '{"id": 1, "name": "kept"}\n{"id": 2, "name": "kept too"}\n');
    expect((await plantStore('import', input, '--sandbox', 'team-a')).code).to.equal(0);
    const refused = await plantStore('sandboxes', 'delete', 'team-a');
    expect([refused.code, refused.stderr.trim()]).to.deep.equal([1, 'plant-store sandboxes: no self-service sandbox named "team-a"']);
    expect((await plantStore('export', '--sandbox', 'team-a')).stdout.trim().split('\n').map((line) => JSON.parse(line).name)).to.deep.equal(['kept', 'kept too']);
  });

  it('refuses a usage it does not know, with the usage line (exit 2)', async () => {
    for (const args of [['sandboxes'], ['sandboxes', 'delete'], ['sandboxes', 'list', 'extra'], ['sandboxes', 'drop', 'x']]) {
      const answer = await plantStore(...args);
      expect(answer.code, args.join(' ')).to.equal(2);
      expect(answer.stderr).to.match(/^plant-store sandboxes: usage: plant-store sandboxes list \| delete NAME/);
    }
  });
});
