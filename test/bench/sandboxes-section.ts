/**
 * Sandboxes' cost (BENCH_SECTIONS=sandboxes runs it alone):
 * - W1, W3 and W2 against the same server with sandboxes off (the run's one static token,
 *   the default sandbox) and on (one static token per connection, each naming a sandbox of
 *   its own, every sandbox seeded with the same 1,000 plants), so that each request does
 *   the same work; and, to tell the two apart, a server with as many tokens all in the
 *   default sandbox. Interleaved, same workloads, on three servers started afresh for each
 *   round (see onAgainstOff). The servers without sandboxes hold as many
 *   plants as the one with, 1,000 for each connection, and each connection reads its own
 *   thousand (connectionIdOffsets): every server reads as much data over a run, so the
 *   comparison is of sandboxes, not of a working set 50 times larger in the CPU's caches.
 *   Likewise W2: each connection creates in an id range of its own (ownRangeCreates), so
 *   every server writes the same plants in as many places, not one of them at one end.
 * - 10,000 sandboxes of 10 plants against one sandbox of 10 plants: pages and gets from one
 *   sandbox (the same in both servers), whose cost should not depend on how many
 *   sandboxes the storage holds.
 * Every server is on BENCH_SANDBOX_STORAGE (memory by default; disk: one temporary data
 * directory each, a round's its own), seeded at start-up through the embedded API (plant-store-server.ts).
 */
import { join } from 'node:path';
import { startPlantStore, type Contender, type Memory, type NodeContenderOptions } from './contenders.js';
import { combinedRuns, IdSource, listWorkload, lookupWorkload, ownRangeCreates, workloads, type Workload } from './load.js';
import { inWorkDirectory, interleave, progress, SEEDED_PLANTS, type SandboxStorage, type Series, type Settings } from './sections.js';
import { FIRST_WRITE_ID } from './seed-plants.js';

export const SANDBOX_CONTENDERS = {
  off: 'sandboxes off',
  tokens: 'off, a token per connection',
  on: 'sandboxes on',
} as const;

/**
 * The on-against-off servers get three rounds for each of the run's (9 by default), each on
 * servers of its own: a round's ratio is two processes' luck as much as sandboxes, too noisy
 * for a median of three to tell 0.95× from 1.0× (docs/benchmarks.md, Sandboxes, "Nine rounds").
 */
export const SANDBOX_ROUNDS_PER_ROUND = 3;

/**
 * A round's run of each server is this many seconds at a time, the three servers taking
 * turns (A B C, B C A, …) until each has had the run's seconds; the round's figure is its
 * windows together. One run of 10 s a server put the others' 20 s of the machine's drift
 * between them: rounds of the same code read 0.79–1.20× of each other. In windows of 2 s,
 * a probe's rounds read 0.98–1.04× (docs/benchmarks.md, Sandboxes, "Windows of 2 s").
 */
export const SANDBOX_WINDOW_SECONDS = 2;

/** The many-sandboxes comparison: how many, how big, and which one is asked. */
export const MANY = { sandboxes: 10_000, plants: 10, asked: 5_000 } as const;
export const MANY_CONTENDERS = {
  one: `1 sandbox of ${MANY.plants} plants`,
  many: `${MANY.sandboxes.toLocaleString('en-US')} sandboxes of ${MANY.plants} plants`,
} as const;

export interface SandboxesResult {
  /** What the servers store plants in: memory or disk. */
  readonly storage: string;
  /** Sandboxes (and tokens) of the "on" server: one per connection. */
  readonly sandboxes: number;
  /** Rounds of the on-against-off servers, each on servers of its own. */
  readonly rounds: number;
  readonly versus: { readonly W1: Series[]; readonly W2: Series[]; readonly W3: Series[] };
  readonly many: {
    readonly W1: Series[];
    readonly W3: Series[];
    /** Seconds each server took to be seeded (one sandbox, then many). */
    readonly preloadSeconds: readonly [number, number];
    /** Memory of each after seeding, after a forced GC. */
    readonly memory: readonly [Memory | undefined, Memory | undefined];
  };
}

/** The section's outcome: its figures, or why it could not be measured (a storage without sandboxes, say). */
export type SandboxesOutcome = SandboxesResult | { readonly failed: string };

/**
 * Runs last in a full run: a failure here (a storage that keeps no sandboxes refuses to start)
 * is reported in its section and its targets, and the rest of the report is still written.
 */
export function sandboxesSection(settings: Settings, token: string): Promise<SandboxesOutcome> {
  return inWorkDirectory('sandboxes', 'plant-store-bench-sandboxes-', (workPath) => measure(settings, token, workPath));
}

async function measure(settings: Settings, token: string, workPath: string): Promise<SandboxesResult> {
  const storageEnv = (dir: string) => storageVariables(settings.sandboxStorage, join(workPath, dir));
  const versus = await onAgainstOff(settings, token, storageEnv);
  const { storage, ...many } = await manyAgainstOne(settings, token, storageEnv);
  return { storage, sandboxes: settings.connections, rounds: settings.sandboxRounds, versus, many };
}

type StorageEnv = (dir: string) => Record<string, string>;
const loadOf = (settings: Settings, token: string) => ({ seconds: settings.seconds, connections: settings.connections, token });

/**
 * W1, W3 then W2 (reads on the seeded plants alone, then creates) against off, as many
 * tokens, and on: each round on three servers started afresh, the first of them a different
 * one each round (started and measured in that order). With one process a server for every
 * round, one process's luck counted in every round: two identical servers without
 * sandboxes read 0.89× and 0.96× of each other in two probes (docs/benchmarks.md).
 */
async function onAgainstOff(settings: Settings, token: string, storageEnv: StorageEnv): Promise<SandboxesResult['versus']> {
  const perConnection = Array.from({ length: settings.connections }, (_, i) => i + 1);
  // One thousand plants a connection, connection i reading ids from i × 1,000 on.
  const plants = SEEDED_PLANTS * settings.connections;
  const connectionIdOffsets = perConnection.map((n) => (n - 1) * SEEDED_PLANTS);
  const starters = (round: number): (() => Promise<Contender>)[] => [
    async () => ({ ...(await start({ name: SANDBOX_CONTENDERS.off, plants, token, env: storageEnv(`off-${round}`) })), connectionIdOffsets }),
    async () => ({
      ...(await start({ name: SANDBOX_CONTENDERS.tokens, plants, token, env: storageEnv(`tokens-${round}`), sandboxes: { tokens: perConnection, inDefault: true } })),
      connectionIdOffsets,
    }),
    () =>
      start({
        name: SANDBOX_CONTENDERS.on,
        plants: 0,
        token,
        env: storageEnv(`on-${round}`),
        sandboxes: { seed: { from: 1, to: settings.connections, plants: SEEDED_PLANTS }, tokens: perConnection },
      }),
  ];
  const seriesEach = (): Series[] => Object.values(SANDBOX_CONTENDERS).map((contender) => ({ contender, runs: [] }));
  const versus = { W1: seriesEach(), W2: seriesEach(), W3: seriesEach() };
  const ids = new IdSource(FIRST_WRITE_ID);
  for (let round = 1; round <= settings.sandboxRounds; round++) {
    progress(
      `sandboxes: round ${round}/${settings.sandboxRounds}, starting this server (${settings.sandboxStorage}) with sandboxes off, with ${settings.connections} tokens (both ${settings.connections} × ${SEEDED_PLANTS} plants), and with ${settings.connections} sandboxes of ${SEEDED_PLANTS} plants`,
    );
    const contenders: Contender[] = [];
    const starts = starters(round);
    try {
      for (let place = 0; place < starts.length; place++) contenders.push(await starts[(place + round - 1) % starts.length]!());
      const windows = Math.max(1, Math.round(settings.seconds / SANDBOX_WINDOW_SECONDS));
      const windowed = { ...settings, seconds: settings.seconds / windows, rounds: windows };
      const run = async (id: 'W1' | 'W2' | 'W3', workload: Workload = workloads[id]): Promise<Series[]> => {
        const series = await interleave(`sandboxes ${id} (servers of round ${round})`, contenders, () => workload, ids, windowed, loadOf(windowed, token));
        return series.map(({ contender, runs }) => ({ contender, runs: [combinedRuns(runs)] }));
      };
      // Each connection writes its own plants too (ownRangeCreates), and the off server gets them in as many id ranges.
      const measured = { W1: await run('W1'), W3: await run('W3'), W2: await run('W2', ownRangeCreates()) };
      for (const id of ['W1', 'W2', 'W3'] as const) {
        for (const { contender, runs } of measured[id]) versus[id].find((series) => series.contender === contender)!.runs.push(...runs);
      }
    } finally {
      for (const contender of contenders) await contender.stop();
    }
  }
  return versus;
}

/** A page and a get of one sandbox, on a storage holding it alone and one holding MANY.sandboxes. */
async function manyAgainstOne(settings: Settings, token: string, storageEnv: StorageEnv): Promise<SandboxesResult['many'] & { storage: string }> {
  const asked = [MANY.asked];
  const pair: Contender[] = [];
  try {
    progress(`sandboxes: starting this server with ${MANY_CONTENDERS.one} and with ${MANY_CONTENDERS.many}`);
    pair.push(await start({ name: MANY_CONTENDERS.one, plants: 0, token, env: storageEnv('one'), sandboxes: { seed: { from: MANY.asked, to: MANY.asked, plants: MANY.plants }, tokens: asked } }));
    pair.push(await start({ name: MANY_CONTENDERS.many, plants: 0, token, env: storageEnv('many'), sandboxes: { seed: { from: 1, to: MANY.sandboxes, plants: MANY.plants }, tokens: asked } }));
    const memory = [await pair[0]!.memory(), await pair[1]!.memory()] as const;
    const ids = new IdSource(FIRST_WRITE_ID);
    const W1 = await interleave('sandboxes, many: page', pair, () => listWorkload(MANY.plants), ids, settings, loadOf(settings, token));
    const W3 = await interleave('sandboxes, many: get', pair, () => lookupWorkload(MANY.plants), ids, settings, loadOf(settings, token));
    // The kind only: a disk store's description names its (temporary) directory.
    return { storage: storageKind(pair[0]!), W1, W3, preloadSeconds: [pair[0]!.preloadSeconds, pair[1]!.preloadSeconds], memory };
  } finally {
    for (const contender of pair) await contender.stop();
  }
}

/**
 * Node flags of every server of the section. V8's memory reducer shrinks the heap of a
 * process that looks idle 8 s after a full collection; taking turns, each server is idle
 * while the others run, so now and then one was shrunk in a gap, whichever it was, and ran
 * its next windows 15–37 % slower, scavenging more often. Off in every server alike.
 */
const SECTION_NODE_FLAGS = ['--no-memory-reducer'];

/** A sandbox server with its seeding time shown, for the long seeds. */
async function start(options: NodeContenderOptions): Promise<Contender> {
  const contender = await startPlantStore({ ...options, nodeOptions: [...SECTION_NODE_FLAGS, ...(options.nodeOptions ?? [])] });
  progress(`sandboxes: ${options.name} up (${storageKind(contender)}), seeded in ${contender.preloadSeconds.toFixed(1)} s`);
  return contender;
}

const storageKind = (contender: Contender) => contender.storage.split(' ')[0]!;

function storageVariables(storage: SandboxStorage, dataDir: string): Record<string, string> {
  return storage === 'disk' ? { PLANT_STORE_STORAGE: 'disk', PLANT_STORE_DATA_DIR: dataDir } : { PLANT_STORE_STORAGE: 'memory' };
}
