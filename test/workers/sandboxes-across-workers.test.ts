import { expect } from 'chai';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { eventually } from '../support/eventually.js';
import { connections, countBy, startGroup, type Group } from './group-process.js';

const CONNECTIONS = 16;

describe('self-service sandboxes on a group of 2 workers on disk', function () {
  this.timeout(60_000);
  let dataDir: TempDir;
  let group: Group | undefined;
  beforeEach(() => {
    dataDir = tempDir('plant-store-workers-sandboxes-');
  });
  afterEach(async () => {
    await group?.killAll();
    group = undefined;
    dataDir.remove();
  });

  it('a token made by POST /sandboxes through one worker works on the other, over many connections; DELETE /sandbox through one ends it on both within a second', async () => {
    // No limit on sign-ups nor on failed authentications: the probes below fail on purpose.
    group = await startGroup(dataDir.path, 2, { PLANT_STORE_SANDBOX_SIGNUP: 'on', PLANT_STORE_SANDBOX_SIGNUP_LIMIT: 'off', PLANT_STORE_AUTH_FAILURE_LIMIT: 'off' });
    const [signer] = connections(group.url, 1, null);
    const made = await signer!.send('POST', '/sandboxes');
    signer!.close();
    expect(made.status, made.text).to.equal(201);
    const { sandbox, token } = made.body as { sandbox: string; token: string };
    const signUpLine = await eventually(() => group!.requestLines().find((line) => line.path === '/sandboxes' && line.status === 201), { what: 'the sign-up line' });

    const users = connections(group.url, CONNECTIONS, token);
    try {
      const creates = await Promise.all(users.map((connection, i) => connection.create(i + 1)));
      const lists = await Promise.all(users.map((connection) => connection.send('GET', '/plants')));
      expect(creates.map((answer) => answer.status), 'creates with the sandbox token').to.deep.equal(Array(CONNECTIONS).fill(200));
      expect(lists.map((answer) => answer.status), 'lists with the sandbox token').to.deep.equal(Array(CONNECTIONS).fill(200));
      const last = await users[0]!.send('GET', '/plants');
      expect((last.body as { id: number }[]).map((plant) => plant.id), "the sandbox's plants").to.deep.equal(Array.from({ length: CONNECTIONS }, (_, i) => i + 1));
      const served = await eventually(() => {
        const lines = group!.requestLines().filter((line) => line.method === 'POST' && line.path === '/plants' && line.status === 200);
        return lines.length >= CONNECTIONS ? lines : undefined;
      }, { what: 'the request lines of the creates' });
      const byWorker = countBy(served, (line) => `worker ${line.worker}`);
      console.log(`      sandbox ${sandbox} made by worker ${signUpLine.worker}; its creates served ${JSON.stringify(byWorker)}; request line of a create: ${JSON.stringify({ ...served[0], time: undefined, requestId: undefined })}`);
      expect(served.some((line) => line.worker !== signUpLine.worker), 'a worker other than the one that made the sandbox served its token').to.equal(true);

      // The sandbox deleted through one connection: its token is refused on every connection, whichever worker holds it.
      const deleted = await users[0]!.send('DELETE', '/sandbox');
      expect(deleted.status, deleted.text).to.equal(204);
      const deletedAt = performance.now();
      // Probes on new connections (so on both workers) for 1.3 s: a worker may trust a verdict
      // it made before the delete for up to a second (another server's promise, API.md).
      const probes: { at: number; statuses: number[] }[] = [];
      while (performance.now() - deletedAt < 1300) {
        const at = performance.now() - deletedAt;
        const round = connections(group.url, 8, token);
        const answers = await Promise.all(round.map((connection) => connection.send('GET', '/plants')));
        for (const connection of round) connection.close();
        probes.push({ at, statuses: answers.map((answer) => answer.status) });
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const lastAccepted = probes.filter((probe) => probe.statuses.some((status) => status !== 401)).at(-1);
      const stillServed = users.length;
      const after = await Promise.all(users.map((connection) => connection.send('GET', '/plants')));
      console.log(
        `      after DELETE /sandbox: ${probes.length} probe rounds of 8 new connections; the last one not all 401 started ${lastAccepted === undefined ? 'never' : `${Math.round(lastAccepted.at)} ms after the delete (${lastAccepted.statuses.join(',')})`}; ` +
          `${after.filter((answer) => answer.status === 401).length} of ${stillServed} open connections refuse it afterwards`,
      );
      expect(probes.some((probe) => probe.at >= 1000), 'probe rounds a second or more after the delete').to.equal(true);
      const lateAccepts = probes.filter((probe) => probe.at >= 1000 && probe.statuses.some((status) => status !== 401));
      expect(lateAccepts.map((probe) => `${Math.round(probe.at)} ms: ${probe.statuses.join(',')}`), 'probes sent a second or more after the delete, not all 401').to.deep.equal([]);
      expect(after.map((answer) => answer.status), 'the open connections (both workers) after the delete').to.deep.equal(Array(stillServed).fill(401));
      for (const answer of after) expect(answer.body.error).to.equal(40102);
      // The worker that served the delete refused the token at once: none of its own lines after the delete's (its lines reach the pipe in order) accepts it.
      const requests = group.requestLines();
      const deleteLine = requests.findIndex((line) => line.method === 'DELETE' && line.path === '/sandbox' && line.status === 204);
      const deleter = requests[deleteLine]!.worker;
      const acceptedAfter = requests.slice(deleteLine + 1).filter((line) => line.worker === deleter && line.tokenHolder === sandbox && line.status < 400);
      const acceptedByOther = requests.slice(deleteLine + 1).filter((line) => line.worker !== deleter && line.tokenHolder === sandbox && line.status < 400);
      console.log(`      the delete served by worker ${deleter}: it accepted the token ${acceptedAfter.length} times after, the other worker ${acceptedByOther.length} times`);
      expect(acceptedAfter.map((line) => `${line.method} ${line.path} ${line.status}`), 'requests the deleting worker accepted after the delete').to.deep.equal([]);
    } finally {
      for (const connection of users) connection.close();
    }
  });
});
