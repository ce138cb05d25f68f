import { expect } from 'chai';
import { once } from 'node:events';
import { join } from 'node:path';
import { startCli } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { projectRoot } from '../support/project-root.js';
import { tempDir } from '../support/temp-dir.js';
import { CreateLoad, expectTheNextServerHolds, GROUP_TOKEN } from '../workers/group-process.js';

// An uncaught exception ends the server as Node would (exit 1, the error on standard error),
// but after closing its storage. Node's own exit at once could hang for good under heavy
// creates (1 try of 8 did), when LMDB's writer thread was waiting for the main thread to run
// a transaction's callbacks: the process lived on holding the data directory and LMDB's
// write lock. composition/cli.ts, stopOnCrash.

const crashOnSignal = join(projectRoot, 'dist', 'test', 'support', 'crash-on-signal.js');
const RUNS = 8;

describe('a server on disk that crashes under heavy creates (an uncaught exception)', function () {
  this.timeout(180_000);

  it(`exits 1 within a second, ${RUNS} times in a row, the error on standard error; every acknowledged create is there for the next server`, async () => {
    const took: number[] = [];
    let acknowledged = 0;
    for (let run = 1; run <= RUNS; run++) {
      using dataDir = tempDir('plant-store-crash-');
      const server = await startCli({ PLANT_STORE_DATA_DIR: dataDir.path, PLANT_STORE_TOKENS: GROUP_TOKEN, PLANT_STORE_RATE_LIMIT: 'off', NODE_OPTIONS: `--import=${crashOnSignal}` });
      const load = new CreateLoad(new URL(server.url).origin, 32, 1);
      try {
        await eventually(() => load.acknowledged.length >= 300, { what: `run ${run}: 300 acknowledged creates`, timeoutMs: 15_000 });
        const exited = once(server.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
        const crashedAt = performance.now();
        server.child.kill('SIGUSR2');
        const outcome = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 1 s'), 1000))]);
        expect(outcome, `run ${run}: exit status and signal`).to.deep.equal([1, null]);
        took.push(Math.round(performance.now() - crashedAt));
        expect(server.stderr(), `run ${run}: the error on standard error`).to.include('Error: a crash provoked by the test');
      } finally {
        await load.stop();
        await server.stop('SIGKILL');
      }
      acknowledged += load.acknowledged.length;
      await expectTheNextServerHolds(dataDir.path, load.acknowledged, 10_000_000, `run ${run}`);
    }
    console.log(`      ${RUNS} crashes, ${acknowledged} creates acknowledged in all; exited ${took.join(', ')} ms after the exception`);
  });
});
