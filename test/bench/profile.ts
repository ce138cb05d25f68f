/**
 * Where this server spends its CPU under one workload: starts it as the benchmark does,
 * with `node --cpu-prof`, drives the workload for a while, stops it, and prints the
 * functions with the most self time and the same time summed by package.
 *
 *   npm run build && node dist/test/bench/profile.js W1 [seconds] [plants] [this|bare|mongodb|disk|webhook]
 *
 * The last argument picks the server: this one in memory (default), the bare node:http
 * ceiling for comparison, this one on the tests' MongoDB (MONGODB_URI or FerretDB), this
 * one on disk, or on disk with one webhook endpoint (the benchmark's receiver, in its own
 * process); a webhook server is stopped only once its outbox is empty, so the profile
 * holds every delivery of the creates made.
 * The .cpuprofile file is kept (path printed) for Chrome DevTools or speedscope.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import { startBareServer, startPlantStore, type Contender } from './contenders.js';
import { IdSource, runLoad, workloads, type WorkloadId } from './load.js';
import { FIRST_WRITE_ID } from './seed-plants.js';
import { pendingDeliveries, SECRET, startReceiver, type Receiver } from './webhooks-section.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/<package>`, `node:internal…`, or the project's own file. */
function owner(url: string): string {
  if (url === '') return '(native / V8)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  if (url.startsWith('node:')) return 'node core';
  const own = /\/dist\/(.+)$/.exec(url);
  return own ? own[1]!.replace(/\/[^/]+$/, '/') : url;
}

function summarise(profile: Profile, top: number): string {
  const selfByNode = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    selfByNode.set(profile.samples[i]!, (selfByNode.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfByNode.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const node of profile.nodes) {
    const self = selfByNode.get(node.id) ?? 0;
    if (self === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url === '' ? '' : ` ${url.replace(/^.*?\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
    const key = `${functionName || '(anonymous)'}${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + self);
    byOwner.set(owner(url), (byOwner.get(owner(url)) ?? 0) + self);
  }
  const rows = (map: Map<string, number>, count: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, micros]) => `  ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${key}`)
      .join('\n');
  // Total time (self + callees) of the project's own functions, each counted once per
  // stack even when it recurses or appears twice (async frames).
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, self] of selfByNode) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = nodes.get(at)!.callFrame;
      if (!frame.url.includes('/dist/') || frame.url.includes('node_modules')) continue;
      const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/dist\//, '')}:${frame.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + self);
    }
  }
  return (
    `Self time by function (top ${top}):\n${rows(byFunction, top)}\n\n` +
    `Self time by package or folder:\n${rows(byOwner, 25)}\n\n` +
    `Total time (self + callees) of the project's own functions:\n${rows(inclusive, 20)}\n`
  );
}

/** Waits for the outbox to empty; the delivery state (a read of the whole outbox) is asked only once arrivals stop. */
async function drained(server: Contender, token: string, receiver: Receiver): Promise<void> {
  await eventually(async () => (await receiver.update()).length === 0 && (await pendingDeliveries(server, token)) === 0, {
    what: 'the outbox to empty',
    timeoutMs: Infinity,
    intervalMs: 200,
  });
}

async function main(): Promise<void> {
  const workloadId = (process.argv[2] ?? 'W1') as WorkloadId;
  const workload = workloads[workloadId];
  if (workload === undefined) throw new Error(`unknown workload ${workloadId} (W1, W2, W3, W4)`);
  const seconds = Number(process.argv[3] ?? '10');
  const plants = Number(process.argv[4] ?? '1000');
  // Not removed: the report names the profile written there.
  const folder = tempDir('plant-store-profile-').path;
  const token = randomBytes(32).toString('base64url');
  const which = process.argv[5] ?? 'this';
  const nodeOptions = ['--cpu-prof', `--cpu-prof-dir=${folder}`];
  let cleanUp = async () => {};
  let receiver: Receiver | undefined;
  let server;
  if (which === 'bare') {
    server = await startBareServer({ name: 'the node:http ceiling', plants, token, nodeOptions });
  } else if (which === 'mongodb') {
    const { sharedDatabase, TEST_DATABASE_NAME, dropCollection } = await import('../support/test-database.js');
    const { uri } = await sharedDatabase();
    const collection = `bench_profile_${process.pid}`;
    const env = { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URI: uri, MONGODB_DB: TEST_DATABASE_NAME, BENCH_MONGODB_COLLECTION: collection };
    server = await startPlantStore({ name: 'this server on MongoDB', plants, token, nodeOptions, env });
    cleanUp = () => dropCollection(uri, collection);
  } else if (which === 'disk' || which === 'webhook') {
    const dataDir = tempDir('plant-store-profile-data-');
    const env: Record<string, string> = { PLANT_STORE_STORAGE: 'disk', PLANT_STORE_DATA_DIR: dataDir.path, PLANT_STORE_LOG_LEVEL: 'warn' };
    if (which === 'webhook') {
      receiver = await startReceiver();
      Object.assign(env, { PLANT_STORE_WEBHOOK_URLS: `${receiver.url}/hook`, PLANT_STORE_WEBHOOK_SECRET: SECRET, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' });
    }
    server = await startPlantStore({ name: which === 'webhook' ? 'this server on disk, one webhook endpoint' : 'this server on disk', plants: 0, token, nodeOptions, env });
    cleanUp = async () => {
      await receiver?.stop();
      dataDir.remove();
    };
  } else {
    server = await startPlantStore({ name: 'this server', plants, token, nodeOptions });
  }
  const ids = new IdSource(FIRST_WRITE_ID);
  const load = { seconds, connections: 50, token };
  await runLoad(server, workload, ids, { ...load, seconds: 2 });
  const run = await runLoad(server, workload, ids, load);
  if (receiver !== undefined) await drained(server, token, receiver);
  await server.stop();
  await cleanUp();
  const file = readdirSync(folder).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error('no profile was written');
  process.stdout.write(
    `${workloadId} on ${server.name}: ${Math.round(run.requestsPerSecond)} req/s, ${Math.round(run.requestsPerCpuSecond)} req per CPU-second (profiling slows it down)\n` +
      `profile: ${join(folder, file)}\n\n${summarise(JSON.parse(readFileSync(join(folder, file), 'utf8')) as Profile, 30)}`,
  );
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
