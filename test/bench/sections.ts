import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/free-port.js';
import { tempDir } from '../support/temp-dir.js';
import { startBareServer, startJsonServer, startPlantStore, type Contender, type Memory } from './contenders.js';
import { IdSource, runLoad, workloads, type LoadOptions, type RunResult, type Workload, type WorkloadId } from './load.js';
import type { RawAnswer, RawCommand } from './mongo-raw-loop.js';
import { FIRST_WRITE_ID } from './seed-plants.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface Settings {
  readonly seconds: number;
  readonly rounds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly sizes: readonly number[];
  readonly sections: ReadonlySet<SectionName>;
  /** Storage of the sandboxes section's servers (BENCH_SANDBOX_STORAGE). */
  readonly sandboxStorage: SandboxStorage;
  /** Measured rounds of the workers section (BENCH_WORKERS_ROUNDS; `rounds` unless set). */
  readonly workersRounds: number;
  /** Rounds of the sandboxes section's on-against-off servers, each round on servers of its own (BENCH_SANDBOX_ROUNDS; three times `rounds` unless set). */
  readonly sandboxRounds: number;
}

export type SectionName = 'compare' | 'breakdown' | 'scaling' | 'mongodb' | 'access' | 'disk' | 'webhooks' | 'sandboxes' | 'feed' | 'workers';
export type SandboxStorage = 'memory' | 'disk';

export const SEEDED_PLANTS = 1000;
/** Wait after the scaling rounds before reading memory (see scalingSection). */
export const MEMORY_SETTLE_MS = 2000;
export const CONTENDERS = { plantStore: 'this server', bare: 'node:http ceiling', jsonServer: 'json-server 0.17' } as const;

/** Progress on standard error, so a long unattended run shows where it is. */
const startedAt = performance.now();
export function progress(message: string): void {
  const elapsed = Math.round((performance.now() - startedAt) / 1000);
  process.stderr.write(`[${String(Math.floor(elapsed / 60)).padStart(2, '0')}:${String(elapsed % 60).padStart(2, '0')}] ${message}\n`);
}

/**
 * Runs `measure` in a temporary directory (`prefix`), removed after. A failure becomes the
 * section's outcome, `{ failed }`, so the rest of the report is still written; its message
 * names no temporary directory, since the report is kept in the project.
 */
export async function inWorkDirectory<T>(section: string, prefix: string, measure: (workPath: string) => Promise<T>): Promise<T | { readonly failed: string }> {
  const work = tempDir(prefix);
  try {
    return await measure(work.path);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split(work.path).join('<temporary directory>');
    progress(`${section}: failed: ${reason}`);
    return { failed: reason };
  } finally {
    work.remove();
  }
}

/**
 * After a run, requests the load generator gave up on at its deadline may still be in the
 * server (waiting for a database, say). Give them time to finish, so they do not eat into
 * the next contender's run: twice the run's p99, at least 0.2 s, at most 10 s.
 */
export function settle(run: RunResult): Promise<void> {
  const seconds = Math.min(10, Math.max(0.2, (2 * run.p99Ms) / 1000));
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

function summary(run: RunResult): string {
  const problems = run.non2xx + run.errors > 0 ? `, ${run.non2xx} non-2xx, ${run.errors} errors` : '';
  return `${Math.round(run.requestsPerSecond)} req/s, ${Math.round(run.requestsPerCpuSecond)} req/CPU-s, p99 ${run.p99Ms} ms${problems}`;
}

export interface Series {
  readonly contender: string;
  readonly runs: RunResult[];
}

export interface WorkloadComparison {
  readonly workload: Workload;
  readonly series: Series[];
}

/**
 * Rounds A B C, B C A, C A B, … of one workload against servers that all stay up for the
 * workload, after one warm-up each that is not measured. Each round starts one server later,
 * so no server always runs right after the same other one (whose work after its run, a
 * garbage collection say, shares the 2 cores with the next run): over as many rounds as
 * servers, each runs in every place once.
 */
export async function interleave(
  label: string,
  contenders: readonly Contender[],
  workloadFor: (contender: Contender) => Workload,
  ids: IdSource,
  settings: Settings,
  load: LoadOptions,
  /** Runs after every run (warm-ups too) has settled, before the next one starts: e.g. to let a backlog drain. */
  afterRun?: (contender: Contender, run: RunResult) => Promise<void>,
): Promise<Series[]> {
  const series: Series[] = contenders.map((c) => ({ contender: c.name, runs: [] }));
  if (settings.warmupSeconds > 0) {
    for (const contender of contenders) {
      progress(`${label}: warming up ${contender.name}`);
      const run = await runLoad(contender, workloadFor(contender), ids, { ...load, seconds: settings.warmupSeconds });
      await settle(run);
      await afterRun?.(contender, run);
    }
  }
  for (let round = 1; round <= settings.rounds; round++) {
    for (let place = 0; place < contenders.length; place++) {
      const index = (place + round - 1) % contenders.length;
      const contender = contenders[index]!;
      const run = await runLoad(contender, workloadFor(contender), ids, load);
      series[index]!.runs.push(run);
      progress(`${label} round ${round}/${settings.rounds}, ${contender.name}: ${summary(run)}`);
      await settle(run);
      await afterRun?.(contender, run);
    }
  }
  return series;
}

/** This server, the bare ceiling and json-server, each started afresh for each workload. */
export async function compareSection(settings: Settings, token: string): Promise<WorkloadComparison[]> {
  const ids = new IdSource(FIRST_WRITE_ID);
  const load = { seconds: settings.seconds, connections: settings.connections, token };
  const results: WorkloadComparison[] = [];
  for (const id of ['W1', 'W2', 'W3', 'W4'] as WorkloadId[]) {
    const workload = workloads[id];
    progress(`${id} (${workload.title}): starting the three servers with ${SEEDED_PLANTS} plants each`);
    const contenders: Contender[] = [];
    try {
      contenders.push(await startPlantStore({ name: CONTENDERS.plantStore, plants: SEEDED_PLANTS, token }));
      contenders.push(await startBareServer({ name: CONTENDERS.bare, plants: SEEDED_PLANTS, token }));
      contenders.push(await startJsonServer({ name: CONTENDERS.jsonServer, plants: SEEDED_PLANTS, port: await freePort() }));
      const series = await interleave(id, contenders, () => workload, ids, settings, load);
      results.push({ workload, series });
    } finally {
      for (const contender of contenders) await contender.stop();
    }
  }
  return results;
}

export interface SizePoint {
  readonly plants: number;
  readonly preloadSeconds: number;
  readonly afterPreload: Memory | undefined;
  readonly afterLoad: Memory | undefined;
}

export interface ScalingResult {
  readonly series: Series[];
  readonly sizes: SizePoint[];
}

/** W1 on this server holding each size of store, interleaved; memory after a forced GC. */
export async function scalingSection(settings: Settings, token: string): Promise<ScalingResult> {
  const ids = new IdSource(FIRST_WRITE_ID);
  const load = { seconds: settings.seconds, connections: settings.connections, token };
  const contenders: Contender[] = [];
  const sizes: SizePoint[] = [];
  try {
    const before: (Memory | undefined)[] = [];
    for (const plants of settings.sizes) {
      progress(`scaling: starting this server with ${plants.toLocaleString('en-US')} plants`);
      const contender = await startPlantStore({ name: `${plants.toLocaleString('en-US')} plants`, plants, token });
      contenders.push(contender);
      before.push(await contender.memory());
    }
    const series = await interleave('scaling W1', contenders, () => workloads.W1, ids, settings, load);
    // The last contender's run has only just ended, the others' long ago: let every one
    // finish releasing what its last run freed before reading any of them.
    await new Promise((resolve) => setTimeout(resolve, MEMORY_SETTLE_MS));
    for (const [index, contender] of contenders.entries()) {
      const after = await contender.memory();
      sizes.push({
        plants: settings.sizes[index]!,
        preloadSeconds: contender.preloadSeconds,
        afterPreload: before[index],
        afterLoad: after,
      });
    }
    return { series, sizes };
  } finally {
    for (const contender of contenders) await contender.stop();
  }
}

/** One round of the raw-driver loop, in the shape of an HTTP run for the tables. */
export interface RawRun {
  readonly operations: number;
  readonly operationsPerSecond: number;
  readonly cpuSeconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

export interface MongoWorkload {
  readonly workload: Workload;
  readonly service: RunResult[];
  readonly raw: RawRun[];
}

export type MongoResult =
  | { readonly skipped: string }
  | { readonly database: string; readonly storage: string; readonly workloads: MongoWorkload[] };

/**
 * W1 and W2 against this server on MongoDB storage, interleaved with a raw-driver loop
 * doing the same reads and inserts on the same collection of the same database: the
 * database the tests use (MONGODB_URI, or the throwaway FerretDB the tests start).
 */
export async function mongoSection(settings: Settings, token: string): Promise<MongoResult> {
  let uri: string;
  let database: string;
  let description: string;
  let writeConcern: string;
  let dropCollection: (uri: string, collection: string) => Promise<void>;
  try {
    progress('mongodb: getting the test database (the first run builds FerretDB, 1–2 minutes)');
    const testDatabase = await import('../support/test-database.js');
    const { durableWrite } = await import('../../adapters/storage/mongo/mongo-plant-repository.js');
    writeConcern = JSON.stringify(durableWrite);
    const { FERRETDB_VERSION } = await import('../support/ferretdb-build.js');
    const shared = await testDatabase.sharedDatabase();
    uri = shared.uri;
    database = testDatabase.testDatabaseName(uri);
    description =
      shared.description === 'MONGODB_URI'
        ? 'the database at MONGODB_URI'
        : `FerretDB ${FERRETDB_VERSION} on SQLite, a throwaway instance on loopback started as the tests start it (test/support/test-database.ts)`;
    dropCollection = testDatabase.dropCollection;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    progress(`mongodb: skipped: ${reason}`);
    return { skipped: reason };
  }

  const collection = `bench_plants_${process.pid}_${randomBytes(3).toString('hex')}`;
  // BENCH_MONGODB_CHANGE_LOG=off: the service without the change feed's log (one write a create, not three).
  const changeLog = process.env['BENCH_MONGODB_CHANGE_LOG'] === 'off' ? 'off' : 'on';
  const mongoEnv = { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URI: uri, MONGODB_DB: database, BENCH_MONGODB_COLLECTION: collection, PLANT_STORE_MONGODB_CHANGE_LOG: changeLog };
  const load = { seconds: settings.seconds, connections: settings.connections, token };
  const ids = new IdSource(FIRST_WRITE_ID);
  let service: Contender | undefined;
  let raw: RawLoop | undefined;
  try {
    progress(`mongodb: starting this server on ${description.split(',')[0]} with ${SEEDED_PLANTS} plants`);
    service = await startPlantStore({ name: 'this server on MongoDB', plants: SEEDED_PLANTS, token, env: mongoEnv });
    raw = await startRawLoop(mongoEnv);
    const results: MongoWorkload[] = [];
    for (const id of ['W1', 'W2'] as const) {
      const workload = workloads[id];
      const result: MongoWorkload = { workload, service: [], raw: [] };
      if (settings.warmupSeconds > 0) {
        progress(`mongodb ${id}: warming up`);
        await settle(await runLoad(service, workload, ids, { ...load, seconds: settings.warmupSeconds }));
        await raw.run(id, settings.warmupSeconds, settings.connections);
      }
      for (let round = 1; round <= settings.rounds; round++) {
        const run = await runLoad(service, workload, ids, load);
        result.service.push(run);
        progress(`mongodb ${id} round ${round}/${settings.rounds}, service: ${summary(run)}`);
        await settle(run);
        const rawRun = await raw.run(id, settings.seconds, settings.connections);
        result.raw.push(rawRun);
        progress(`mongodb ${id} round ${round}/${settings.rounds}, raw driver: ${Math.round(rawRun.operationsPerSecond)} ops/s, p99 ${rawRun.p99Ms.toFixed(1)} ms${rawRun.errors ? `, ${rawRun.errors} errors` : ''}`);
      }
      results.push(result);
    }
    return { database: description, storage: `${service.storage}, writes acknowledged with \`${writeConcern}\`, change log ${changeLog}`, workloads: results };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    progress(`mongodb: failed: ${reason}`);
    return { skipped: `failed: ${reason}` };
  } finally {
    await service?.stop();
    await raw?.stop();
    await dropCollection(uri, collection).catch(() => {});
  }
}

interface RawLoop {
  run(workload: 'W1' | 'W2', seconds: number, concurrency: number): Promise<RawRun>;
  stop(): Promise<void>;
}

function startRawLoop(env: Record<string, string>): Promise<RawLoop> {
  const child = spawn(process.execPath, [join(here, 'mongo-raw-loop.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<RawAnswer>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the raw-driver loop exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (answer: RawAnswer) => {
        child.off('exit', onExit);
        resolve(answer);
      });
    });
  return next().then((answer) => {
    if (answer.type !== 'ready') throw new Error(`the raw-driver loop did not start: ${answer.type === 'failed' ? answer.message : answer.type}`);
    return {
      run: async (workload, seconds, concurrency) => {
        const answer = next();
        child.send({ type: 'run', workload, seconds, concurrency } satisfies RawCommand);
        const result = await answer;
        if (result.type !== 'result') throw new Error(`the raw-driver loop failed: ${result.type === 'failed' ? result.message : result.type}`);
        return {
          operations: result.operations,
          operationsPerSecond: result.operations / result.seconds,
          cpuSeconds: result.cpuSeconds,
          p50Ms: result.p50Ms,
          p99Ms: result.p99Ms,
          errors: result.errors,
        };
      },
      stop: async () => {
        if (child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.send({ type: 'stop' } satisfies RawCommand);
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      },
    };
  });
}
