import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { Connection, connections, countBy, GROUP_TOKEN, startGroup, type Answer, type Group, type LogLine } from './group-process.js';

const WORKERS = 2;

/**
 * docs/workers.md: the limits (rate limit, failed authentications, sign-ups) are per
 * process. A keep-alive connection stays on one worker, so one connection is limited
 * exactly; requests spread over new connections reach both workers (the primary hands
 * connections out in turn) and get at most N × the limit.
 */
describe('the limits of a group of 2 workers on disk: exact on one connection, at most N × over many', function () {
  this.timeout(60_000);
  let dataDir: TempDir;
  let group: Group | undefined;
  beforeEach(() => {
    dataDir = tempDir('plant-store-workers-limits-');
  });
  afterEach(async () => {
    await group?.killAll();
    group = undefined;
    dataDir.remove();
  });

  /** `count` requests one after another on one keep-alive connection. */
  async function onOneConnection(count: number, token: string | null, send: (connection: Connection) => Promise<Answer>): Promise<number[]> {
    const connection = new Connection(group!.url, token);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) statuses.push((await send(connection)).status);
      return statuses;
    } finally {
      connection.close();
    }
  }

  /** `count` requests one after another, each on a new connection; their statuses and request lines (once all are read). */
  async function onNewConnections(count: number, token: string | null, send: (connection: Connection) => Promise<Answer>, path: string, before: number): Promise<{ statuses: number[]; lines: LogLine[] }> {
    const statuses: number[] = [];
    for (const connection of connections(group!.url, count, token)) {
      statuses.push((await send(connection)).status);
      connection.close();
    }
    const lines = await eventually(() => {
      const found = group!.requestLines().filter((line) => line.path === path);
      return found.length >= before + count ? found.slice(before) : undefined;
    }, { what: `${count} more request lines of ${path}`, context: () => group!.server.stdout().slice(-2000) });
    return { statuses, lines };
  }

  function summary(lines: LogLine[]): string {
    return JSON.stringify(countBy(lines, (line) => `worker ${line.worker} ${line.status}`));
  }

  const count = (statuses: number[], status: number) => statuses.filter((each) => each === status).length;

  it('sign-ups, PLANT_STORE_SANDBOX_SIGNUP_LIMIT=4: 8 on one connection → 4 × 201 then 429s; 12 more each on a new connection → at most 4 more answered 201 (2 × 4 in all), both workers taking part', async () => {
    group = await startGroup(dataDir.path, WORKERS, { PLANT_STORE_SANDBOX_SIGNUP: 'on', PLANT_STORE_SANDBOX_SIGNUP_LIMIT: '4' });
    const one = await onOneConnection(8, null, (connection) => connection.send('POST', '/sandboxes'));
    expect(one, 'sign-ups on one connection').to.deep.equal([201, 201, 201, 201, 429, 429, 429, 429]);
    // The worker that took them has used its limit; the other has all of its own.
    const { statuses, lines } = await onNewConnections(12, null, (connection) => connection.send('POST', '/sandboxes'), '/sandboxes', 8);
    console.log(`      one connection: ${one.join(',')}; new connections: ${summary(lines)}`);
    expect(new Set(lines.map((line) => line.worker)).size, 'both workers took sign-ups').to.equal(WORKERS);
    // Only the other worker has any of its limit left: at most 4 more, 2 × 4 in all.
    expect(count(statuses, 201), 'sign-ups answered 201 over new connections').to.be.within(1, 4);
    expect(count(statuses, 201) + count(statuses, 429)).to.equal(12);
  });

  it('failed authentications, PLANT_STORE_AUTH_FAILURE_LIMIT=10: 15 wrong tokens on one connection → 10 × 401 then 429s; 30 more each on a new connection → at most 10 more answered 401 (2 × 10 in all)', async () => {
    group = await startGroup(dataDir.path, WORKERS, { PLANT_STORE_AUTH_FAILURE_LIMIT: '10' });
    const wrong = 'not-the-token-0123456789abcdef';
    const one = await onOneConnection(15, wrong, (connection) => connection.send('GET', '/plants'));
    expect(one, 'wrong tokens on one connection').to.deep.equal([...Array(10).fill(401), ...Array(5).fill(429)]);
    const { statuses, lines } = await onNewConnections(30, wrong, (connection) => connection.send('GET', '/plants'), '/plants', 15);
    console.log(`      one connection: ${one.join(',')}; new connections: ${summary(lines)}`);
    expect(new Set(lines.map((line) => line.worker)).size, 'both workers answered').to.equal(WORKERS);
    // Only the other worker has any of its limit left: at most 10 more, 2 × 10 in all.
    expect(count(statuses, 401), 'answered 401 over new connections').to.be.within(1, 10);
    expect(count(statuses, 401) + count(statuses, 429)).to.equal(30);
  });

  it('the rate limit, PLANT_STORE_RATE_LIMIT=1 with a burst of 10: 15 requests on one connection → at most 10 + the seconds elapsed answered 200; 30 on new connections → at most 2 × that', async () => {
    group = await startGroup(dataDir.path, WORKERS, { PLANT_STORE_RATE_LIMIT: '1', PLANT_STORE_RATE_BURST: '10' });
    let started = performance.now();
    const one = await onOneConnection(15, GROUP_TOKEN, (connection) => connection.send('GET', '/plants'));
    let seconds = (performance.now() - started) / 1000;
    expect(count(one, 200), `answered 200 on one connection in ${seconds.toFixed(2)} s: ${one.join(',')}`).to.be.within(10, 10 + Math.ceil(seconds));
    expect(count(one, 200) + count(one, 429)).to.equal(15);
    await new Promise((resolve) => setTimeout(resolve, 11_000)); // both workers' buckets full again
    started = performance.now();
    const { statuses, lines } = await onNewConnections(30, GROUP_TOKEN, (connection) => connection.send('GET', '/plants'), '/plants', 15);
    seconds = (performance.now() - started) / 1000;
    console.log(`      one connection: ${count(one, 200)} × 200 of 15; new connections in ${seconds.toFixed(2)} s: ${summary(lines)}`);
    expect(new Set(lines.map((line) => line.worker)).size, 'both workers answered').to.equal(WORKERS);
    expect(count(statuses, 200), `answered 200 over new connections in ${seconds.toFixed(2)} s`).to.be.within(10, WORKERS * (10 + Math.ceil(seconds)));
  });
});
