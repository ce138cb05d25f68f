/**
 * The measurement behind the disk storage's engine: LMDB (`lmdb`) against LevelDB
 * (`classic-level`), each used the way the adapter would use it, without HTTP.
 *   W1: pages of 100 plants from random cursors in a store of BENCH_ENGINE_PLANTS (100,000).
 *   W2: durable creates (acknowledged after the engine's fsync), 50 at a time.
 * Run: npx tsc -p tsconfig.json && node dist/test/bench/engine-choice.js
 * Needs both engines installed (`npm install --no-save classic-level` once the project uses LMDB).
 * Each workload runs BENCH_ENGINE_SECONDS (3) per engine; the figures are printed.
 */
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';

const PLANTS = Number(process.env['BENCH_ENGINE_PLANTS'] || 100_000);
const SECONDS = Number(process.env['BENCH_ENGINE_SECONDS'] || 3);
const PAGE = 100;
const CONCURRENT = 50;

interface Engine {
  readonly name: string;
  load(count: number): Promise<void>;
  page(after: number): Promise<number>;
  /** Creates the plant unless its id exists; resolves once it is on stable storage. */
  durableCreate(id: number): Promise<boolean>;
  close(): Promise<void>;
}

const plantValue = (id: number) => ({ name: `plant ${id}`, ...(id % 3 === 0 && { tag: `tag${id % 10}` }) });

async function openLmdb(dir: string): Promise<Engine> {
  const { open } = await import('lmdb');
  const root = open({ path: dir, separateFlushed: true });
  const plants = root.openDB<{ name: string; tag?: string }, number>({ name: 'plants' });
  return {
    name: `lmdb ${await versionOf('lmdb')}`,
    async load(count) {
      for (let start = 1; start <= count; start += 10_000) {
        await plants.transaction(() => {
          for (let id = start; id < start + 10_000 && id <= count; id++) void plants.put(id, plantValue(id));
        });
      }
      await root.flushed;
    },
    async page(after) {
      let n = 0;
      for (const entry of plants.getRange({ start: after + 1, limit: PAGE })) n += entry.key > 0 ? 1 : 0;
      return n;
    },
    async durableCreate(id) {
      const created = await plants.ifNoExists(id, () => void plants.put(id, plantValue(id)));
      await root.flushed;
      return created;
    },
    close: () => root.close(),
  };
}

/** The part of classic-level's API used here. */
interface LevelDb {
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: Buffer): Promise<string | undefined>;
  batch(): { put(key: Buffer, value: string): void; write(): Promise<void> };
  batch(operations: { type: 'put'; key: Buffer; value: string }[], options: { sync: boolean }): Promise<void>;
  iterator(options: { gt: Buffer; limit: number }): { all(): Promise<unknown[]> };
}

async function openLevel(dir: string): Promise<Engine> {
  // Not a dependency of the project (LMDB was chosen): loaded by name so the build needs no types.
  const levelModule = 'classic-level';
  const { ClassicLevel } = (await import(levelModule)) as { ClassicLevel: new (dir: string, options: object) => LevelDb };
  const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'utf8' });
  await db.open();
  const key = (id: number) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64BE(BigInt(id));
    return buffer;
  };
  // LevelDB has no conditional write: create-if-absent is a get and a batch, serialized per id.
  const pending = new Set<number>();
  return {
    name: `classic-level ${await versionOf('classic-level')}`,
    async load(count) {
      for (let start = 1; start <= count; start += 10_000) {
        const batch = db.batch();
        for (let id = start; id < start + 10_000 && id <= count; id++) batch.put(key(id), JSON.stringify(plantValue(id)));
        await batch.write();
      }
    },
    async page(after) {
      const entries = await db.iterator({ gt: key(after), limit: PAGE }).all();
      return entries.length;
    },
    async durableCreate(id) {
      if (pending.has(id)) return false;
      pending.add(id);
      try {
        if ((await db.get(key(id))) !== undefined) return false;
        await db.batch([{ type: 'put', key: key(id), value: JSON.stringify(plantValue(id)) }], { sync: true });
        return true;
      } finally {
        pending.delete(id);
      }
    },
    close: () => db.close(),
  };
}

// Read from node_modules: lmdb's package exports do not include its package.json.
async function versionOf(name: string): Promise<string> {
  const { readFileSync } = await import('node:fs');
  const { projectRoot } = await import('../support/project-root.js');
  return (JSON.parse(readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

async function measure(engine: Engine): Promise<{ w1: number; w2: number; loadSeconds: number }> {
  const loadStart = performance.now();
  await engine.load(PLANTS);
  const loadSeconds = (performance.now() - loadStart) / 1000;

  let pages = 0;
  const w1End = performance.now() + SECONDS * 1000;
  while (performance.now() < w1End) {
    const got = await engine.page(Math.floor(Math.random() * (PLANTS - PAGE)));
    if (got !== PAGE) throw new Error(`${engine.name}: a page held ${got} plants`);
    pages++;
  }

  let nextId = PLANTS + 1;
  let creates = 0;
  const w2End = performance.now() + SECONDS * 1000;
  const writer = async () => {
    while (performance.now() < w2End) {
      if (!(await engine.durableCreate(nextId++))) throw new Error(`${engine.name}: a new id was refused`);
      creates++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, writer));
  return { w1: pages / SECONDS, w2: creates / SECONDS, loadSeconds };
}

async function main(): Promise<void> {
  console.log(`W1: pages of ${PAGE} from ${PLANTS.toLocaleString('en-US')} plants; W2: durable creates, ${CONCURRENT} concurrent; ${SECONDS} s each`);
  for (const opener of [openLmdb, openLevel]) {
    using dir = tempDir('engine-choice-');
    const engine = await opener(dir.path);
    const { w1, w2, loadSeconds } = await measure(engine);
    await engine.close();
    console.log(`${engine.name.padEnd(22)} W1 ${Math.round(w1).toLocaleString('en-US')} pages/s   W2 ${Math.round(w2).toLocaleString('en-US')} creates/s   (load ${loadSeconds.toFixed(1)} s)`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
