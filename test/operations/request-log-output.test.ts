import { expect } from 'chai';
import { once } from 'node:events';
import { join } from 'node:path';
import { startCli, type CliServer } from '../support/cli-process.js';
import { HttpClient } from '../support/http-client.js';
import { projectRoot } from '../support/project-root.js';
import { eventually } from '../support/eventually.js';

const token = 'request-log-output-token-0123456789';
const REQUESTS = 300;
const crashOnSignal = join(projectRoot, 'dist', 'test', 'support', 'crash-on-signal.js');

/** The lines of the test's plant requests on the server's standard output (the client's fetch of /openapi.json aside). */
function requestLines(server: CliServer): Record<string, unknown>[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line['msg'] === 'request' && line['route'] === '/plants/:id');
}

async function sendRequests(server: CliServer): Promise<void> {
  const http = await HttpClient.connect(server.url, token);
  // Ten at a time, so lines pile up while a write is under way.
  for (let start = 1; start <= REQUESTS; start += 10) {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => http.get(`/plants/${start + i}`)));
    for (const answer of answers) expect(answer.status).to.equal(404);
  }
}

describe('the request log on standard output (written asynchronously)', function () {
  this.timeout(60_000);
  let server: CliServer | undefined;
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
  });

  it('a line is written within a second of its answer, even when nothing follows it', async () => {
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_STORAGE: 'memory', PLANT_STORE_RATE_LIMIT: 'off' });
    const http = await HttpClient.connect(server.url, token);
    expect((await http.get('/plants/1')).status).to.equal(404);
    await eventually(() => requestLines(server!).length === 1, { context: () => server!.stdout(), timeoutMs: 1000 });
  });

  it('every line is written before the process ends on SIGTERM', async () => {
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_STORAGE: 'memory', PLANT_STORE_RATE_LIMIT: 'off' });
    await sendRequests(server);
    expect(await server.stop('SIGTERM')).to.equal(0);
    expect(requestLines(server)).to.have.length(REQUESTS);
    expect(server.stdout()).to.include('"msg":"stopped"');
  });

  it('every line is written before the process ends on an uncaught exception', async () => {
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_STORAGE: 'memory', PLANT_STORE_RATE_LIMIT: 'off', NODE_OPTIONS: `--import=${crashOnSignal}` });
    await sendRequests(server);
    const exited = once(server.child, 'exit');
    server.child.kill('SIGUSR2');
    const [code] = (await exited) as [number | null];
    expect(code, 'the crash ends the process').to.not.equal(0);
    expect(server.output()).to.include('a crash provoked by the test');
    expect(requestLines(server)).to.have.length(REQUESTS);
  });

  it('a crash while requests are under way loses the line of no answered request', async () => {
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_STORAGE: 'memory', PLANT_STORE_RATE_LIMIT: 'off', NODE_OPTIONS: `--import=${crashOnSignal}` });
    const http = await HttpClient.connect(server.url, token);
    const answered: string[] = [];
    let crashed = false;
    const exited = once(server.child, 'exit');
    // Ten callers keep requests going; the crash comes while lines are still being gathered.
    const callers = Array.from({ length: 10 }, async (_, caller) => {
      for (let i = 0; !crashed; i++) {
        const id = `crash-test-${caller}-${i}`;
        try {
          const answer = await http.request('GET', `/plants/${i + 1}`, { headers: { 'X-Request-Id': id } });
          if (answer.status === 404) answered.push(id);
        } catch {
          return; // the server is gone
        }
        if (answered.length === 200 && !crashed) {
          crashed = true;
          server!.child.kill('SIGUSR2');
        }
      }
    });
    await Promise.all(callers);
    await exited;
    const logged = new Set(requestLines(server).map((line) => line['requestId']));
    expect(answered.length).to.be.at.least(200);
    expect(answered.filter((id) => !logged.has(id))).to.deep.equal([]);
  });
});
