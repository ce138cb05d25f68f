/**
 * "This server" for the benchmarks: started through the library exactly as the
 * `plant-store` command starts it (composition/cli.ts) — configuration read from the same
 * variables, the pino logger at the configured level writing JSON lines to standard
 * output, buildServer — then preloaded with the seed plants through the store's own
 * create (on disk in batches, see seedDefault). The runner sets PLANT_STORE_RATE_LIMIT=off
 * and leaves everything else as shipped. Reports its port, and its memory after a forced
 * GC, over IPC.
 *
 * Variables beyond the server's own: BENCH_PLANTS (how many seed plants, default 1000),
 * BENCH_MONGODB_COLLECTION (collection to use when MONGODB_URI is set; the runner passes a
 * fresh one so the benchmark never touches data it did not write), BENCH_SANDBOX_RANGE
 * (`<from>-<to>`: also seed sandboxes sb-<from> … sb-<to>, see sandboxName) with
 * BENCH_SANDBOX_PLANTS plants each (default 1000), BENCH_COMMIT_TIMES=on (note when each plant
 * of the default sandbox was committed, for the parent to ask: the feed's fan-out latency).
 */
import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import { buildServer } from '../../composition/server/build-server.js';
import { configFrom } from '../../composition/config/parse-config.js';
import { InjectionTokens } from '../../composition/store/injection-tokens.js';
import { openStorage, type OpenStorage, type StorageOpener } from '../../composition/store/storage.js';
import { answerParent, nowMs, tellParent } from './child-protocol.js';
import { sandboxName, seedPlants } from './seed-plants.js';
import type { PlantStore } from '../../composition/store/plant-store.js';

async function main(): Promise<void> {
  const config = configFrom(process.argv.slice(2), process.env);
  if (config.access.tokens === undefined) throw new Error('the benchmark passes its token in PLANT_STORE_TOKENS');
  const container = rootContainer.createChildContainer();
  const collectionName = process.env['BENCH_MONGODB_COLLECTION'];
  const { storage } = config;
  const commits = process.env['BENCH_COMMIT_TIMES'] === 'on' ? new CommitTimes() : undefined;
  if ((storage !== undefined && collectionName) || commits !== undefined) {
    // Swapped in the way tests swap storage. A collection of its own: never data it did not write.
    const option = storage !== undefined && collectionName ? { ...storage, collectionName } : storage;
    const open = async () => {
      const opened = await openStorage(option);
      commits?.watch(opened);
      return opened;
    };
    container.register<StorageOpener>(InjectionTokens.Storage, { useValue: open });
  }
  const built = await buildServer(config, container);
  const { store, server, log } = built;
  // Before the seed plants, whose commits are noted too: the two are paired in order.
  if (commits !== undefined) {
    store.subscribe((event) => {
      if (event.sandbox === undefined) commits.named(event.type === 'plant.created' ? event.data.id : undefined);
    });
  }

  const count = Number(process.env['BENCH_PLANTS'] ?? '1000');
  const started = performance.now();
  await seedDefault(store, count, storage !== undefined && 'dataDir' in storage);
  await seedSandboxes(store, process.env['BENCH_SANDBOX_RANGE'], Number(process.env['BENCH_SANDBOX_PLANTS'] ?? '1000'));
  const preloadSeconds = (performance.now() - started) / 1000;

  log.info({ storage: store.storageDescription }, `plant-store listening on ${server.url}${config.http.basePath} (storage: ${store.storageDescription})`);
  answerParent(() => built.close(1000), commits && (() => commits.take()));
  tellParent({ type: 'ready', port: server.port, plants: count, preloadSeconds, storage: store.storageDescription });
}

/**
 * When each plant of the default sandbox was committed, on the monotonic clock (the same in
 * every process, so the parent can compare). The change log calls its watchers in the very
 * step that records a change, and this watcher, added before any stream opens, first; which
 * plant it was is learnt from the store's event a moment later, in the same order.
 */
class CommitTimes {
  private unnamed: number[] = [];
  private ids: number[] = [];
  private atMs: number[] = [];

  watch(opened: OpenStorage): void {
    const log = opened.repository.changes;
    if (log === undefined) throw new Error('BENCH_COMMIT_TIMES: this storage keeps no change log');
    log.watch(() => this.unnamed.push(nowMs()));
  }

  /** The plant of the oldest change not yet named (undefined: a deletion, not kept). */
  named(id: number | undefined): void {
    const at = this.unnamed.shift();
    if (at === undefined || id === undefined) return;
    this.ids.push(id);
    this.atMs.push(at);
  }

  /** What was noted since the last take. */
  take(): { ids: number[]; atMs: number[] } {
    const taken = { ids: this.ids, atMs: this.atMs };
    this.ids = [];
    this.atMs = [];
    return taken;
  }
}

/** Creates made at once while seeding in batches: a durable storage commits the creates of one turn together. */
const SEED_BATCH = 1000;

/** Starts the creates SEED_BATCH at a time, each batch once the one before is done. */
async function inBatches(creates: Iterable<() => Promise<unknown>>): Promise<void> {
  let batch: Promise<unknown>[] = [];
  for (const create of creates) {
    batch.push(create());
    if (batch.length === SEED_BATCH) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
}

/**
 * Seeds the default sandbox with plants 1…`count` through the store's create. On disk in
 * batches, as seedSandboxes does: one at a time is a commit each, and 50,000 such commits
 * leave an LMDB file that later writes cost more in (34 against 23 µs of CPU a create in a
 * probe), so the sandboxes section's servers with and without sandboxes would differ by how
 * they were filled (docs/benchmarks.md, Sandboxes). Elsewhere one at a time, as every other
 * section has always been seeded.
 */
async function seedDefault(store: PlantStore, count: number, onDisk: boolean): Promise<void> {
  if (onDisk) return inBatches((function* () {
    for (const plant of seedPlants(count)) yield () => store.create(plant);
  })());
  for (const plant of seedPlants(count)) await store.create(plant);
}

/**
 * Seeds sandboxes number `range` (`<from>-<to>`) with plants 1…`plants` each, through the
 * embedded API (`store.sandbox(name).create`: validated and stored as a request's create
 * is), in batches so that a durable storage shares its commits — one create at a time,
 * 100,000 plants on disk would wait for 100,000 syncs.
 */
async function seedSandboxes(store: PlantStore, range: string | undefined, plants: number): Promise<void> {
  if (range === undefined || range === '') return;
  const [from, to] = range.split('-').map(Number);
  if (!Number.isInteger(from) || !Number.isInteger(to) || from! < 1 || to! < from!) throw new Error(`BENCH_SANDBOX_RANGE must be <from>-<to>, got "${range}"`);
  if (!Number.isInteger(plants) || plants < 0) throw new Error('BENCH_SANDBOX_PLANTS must be a whole number');
  await inBatches((function* () {
    for (let n = from!; n <= to!; n++) {
      const sandbox = store.sandbox(sandboxName(n));
      for (const plant of seedPlants(plants)) yield () => sandbox.create(plant);
    }
  })());
}

main().catch((error: unknown) => {
  tellParent({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
