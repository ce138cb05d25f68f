import { expect } from 'chai';
import { HttpClient } from '../support/http-client.js';
import { randomToken } from '../support/http-server.js';
import { startCli, type CliServer } from '../support/cli-process.js';
import { loadWithNeverReadingClients } from '../support/never-reading-clients.js';

/**
 * Issue 14, item 7: clients that pipeline requests and never read the answers. The server
 * runs as its own process so its resident memory is what is measured.
 */
describe('clients that pipeline and never read', function () {
  this.timeout(60_000);
  let server: CliServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('10 connections × 2,000 pipelined GET /plants: RSS grows < 200 MB and /healthz stays < 1 s for others', async () => {
    const tokens = Array.from({ length: 10 }, randomToken);
    // Memory storage, as in the benchmarks: what is measured is the server's handling of the
    // connections, not how fast a storage reads a page (LMDB's decode makes each answer costlier).
    server = await startCli({ PLANT_STORE_TOKENS: tokens.join(','), PLANT_STORE_RATE_LIMIT: 'off', PLANT_STORE_STORAGE: 'memory' });
    const origin = new URL(server.url).origin;
    const http = await HttpClient.connect(origin, tokens);
    // A full page of 1,000 plants makes every answer about 75 KB: what a hoarding client keeps.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const id = batch * 100 + i + 1;
          const response = await http.post('/plants', { json: { id, name: `a plant with a longish name, number ${id}`, tag: 'hoarded' } });
          expect(response.status).to.equal(200);
        }),
      );
    }
    const figures = await loadWithNeverReadingClients({
      url: origin,
      port: Number(new URL(origin).port),
      pid: server.child.pid!,
      tokens,
      requestsPerConnection: 2000,
      windowMs: 8000,
    });
    const growth = figures.rssPeakMb - figures.rssBeforeMb;
    console.log(
      `      never-reading clients: RSS ${figures.rssBeforeMb.toFixed(0)} → ${figures.rssPeakMb.toFixed(0)} MB (+${growth.toFixed(0)}), ` +
        `slowest /healthz ${figures.slowestHealthzMs.toFixed(0)} ms over ${figures.healthzChecks} checks`,
    );
    expect(growth, 'RSS growth in MB').to.be.below(200);
    expect(figures.slowestHealthzMs, 'slowest /healthz in ms').to.be.below(1000);
  });
});
