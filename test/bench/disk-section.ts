/**
 * The disk storage's benchmarks (BENCH_SECTIONS=disk runs them alone):
 * - import of the largest size (1,000,000 plants) into an empty data directory with
 *   `plant-store import`, as a user would run it: time and plants per second;
 * - W1 and W2 on this server on disk against this server on memory, interleaved;
 * - W1 on disk holding the smallest size against the largest, and resident memory at the largest.
 * Disk stores are filled by import (creating a million plants one durable request at a time
 * would take minutes); memory stores are seeded as in the other sections.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { cliPath } from '../support/cli-process.js';
import { tempDir } from '../support/temp-dir.js';
import { startPlantStore, type Contender, type Memory } from './contenders.js';
import { IdSource, workloads } from './load.js';
import { interleave, progress, SEEDED_PLANTS, type Series, type Settings } from './sections.js';
import { FIRST_WRITE_ID, seedPlants } from './seed-plants.js';

export const DISK_CONTENDERS = { memory: 'this server on memory', disk: 'this server on disk' } as const;

export interface ImportFigure {
  readonly plants: number;
  readonly seconds: number;
  readonly fileBytes: number;
}

export interface DiskResult {
  readonly import: ImportFigure;
  /** W1 and W2: memory and disk series, interleaved. */
  readonly versusMemory: { readonly W1: Series[]; readonly W2: Series[] };
  /** W1 on disk: smallest size first, largest second. */
  readonly scaling: Series[];
  readonly sizes: readonly [number, number];
  readonly largestMemory: Memory | undefined;
  readonly storage: string;
}

export async function diskSection(settings: Settings, token: string): Promise<DiskResult> {
  const work = tempDir('plant-store-bench-disk-');
  const smallest = settings.sizes[0]!;
  const largest = settings.sizes[settings.sizes.length - 1]!;
  const load = { seconds: settings.seconds, connections: settings.connections, token };
  try {
    progress(`disk: writing ${largest.toLocaleString('en-US')} plants as JSON Lines`);
    const largeFile = await writeSeedFile(join(work.path, 'large.jsonl'), largest);
    progress('disk: importing them into an empty data directory');
    const imported = await timedImport(largeFile.path, join(work.path, 'large'));
    progress(`disk: import took ${imported.toFixed(1)} s (${Math.round(largest / imported).toLocaleString('en-US')} plants/s)`);
    const small = await writeSeedFile(join(work.path, 'small.jsonl'), SEEDED_PLANTS);
    await timedImport(small.path, join(work.path, 'versus'));

    const versusMemory = { W1: [] as Series[], W2: [] as Series[] };
    let storage = '';
    for (const id of ['W1', 'W2'] as const) {
      progress(`disk ${id}: this server on memory and on disk, ${SEEDED_PLANTS} plants each`);
      const contenders: Contender[] = [];
      try {
        contenders.push(await startPlantStore({ name: DISK_CONTENDERS.memory, plants: SEEDED_PLANTS, token }));
        contenders.push(await startPlantStore({ name: DISK_CONTENDERS.disk, plants: 0, token, env: diskEnv(join(work.path, 'versus')) }));
        storage = contenders[1]!.storage;
        versusMemory[id] = await interleave(`disk ${id}`, contenders, () => workloads[id], new IdSource(FIRST_WRITE_ID), settings, load);
      } finally {
        for (const contender of contenders) await contender.stop();
      }
    }

    progress(`disk scaling: W1 on disk with ${smallest.toLocaleString('en-US')} and ${largest.toLocaleString('en-US')} plants`);
    const smallFile = smallest === SEEDED_PLANTS ? small : await writeSeedFile(join(work.path, 'smallest.jsonl'), smallest);
    await timedImport(smallFile.path, join(work.path, 'smallest'));
    const contenders: Contender[] = [];
    try {
      contenders.push(await startPlantStore({ name: `disk, ${smallest.toLocaleString('en-US')} plants`, plants: 0, token, env: diskEnv(join(work.path, 'smallest')) }));
      contenders.push(await startPlantStore({ name: `disk, ${largest.toLocaleString('en-US')} plants`, plants: 0, token, env: diskEnv(join(work.path, 'large')) }));
      const scaling = await interleave('disk scaling W1', contenders, () => workloads.W1, new IdSource(FIRST_WRITE_ID), settings, load);
      const largestMemory = await contenders[1]!.memory();
      return { import: { plants: largest, seconds: imported, fileBytes: largeFile.bytes }, versusMemory, scaling, sizes: [smallest, largest], largestMemory, storage };
    } finally {
      for (const contender of contenders) await contender.stop();
    }
  } finally {
    work.remove();
  }
}

const diskEnv = (dataDir: string) => ({ PLANT_STORE_STORAGE: 'disk', PLANT_STORE_DATA_DIR: dataDir });

async function writeSeedFile(path: string, count: number): Promise<{ path: string; bytes: number }> {
  let bytes = 0;
  async function* lines() {
    let chunk = '';
    for (const plant of seedPlants(count)) {
      chunk += JSON.stringify(plant) + '\n';
      if (chunk.length > 65_536) {
        bytes += chunk.length;
        yield chunk;
        chunk = '';
      }
    }
    bytes += chunk.length;
    yield chunk;
  }
  await pipeline(Readable.from(lines()), createWriteStream(path));
  return { path, bytes };
}

/** Runs `plant-store import FILE` into `dataDir` as its own process; its wall-clock seconds. */
async function timedImport(file: string, dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [cliPath, 'import', file], {
    env: { ...process.env, PLANT_STORE_STORAGE: 'disk', PLANT_STORE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`plant-store import exited with ${code}: ${output.slice(-500)}`);
  return (performance.now() - started) / 1000;
}
