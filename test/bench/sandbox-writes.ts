/**
 * What a create costs the disk storage itself, without HTTP: a quieter figure than the
 * sandboxes section's W2 (whose servers differ by 4–11 % from one another even when alike).
 * Each layout runs in a child process of its own on a fresh data directory: 50 writers create
 * one plant at a time each, as W2's connections do, after a seed of 1,000 plants a writer
 * (one bulk transaction each). CPU time is the child's own, over the creates only; so are
 * the pages written (bytes handed to write calls, /proc/self/io: the same from run to run,
 * where CPU time is not).
 * - `off`: the default sandbox; seeds 1…50,000, writer i creating from FIRST_WRITE_ID + i
 *   million (the ids the sandboxes section's servers without sandboxes hold and write,
 *   though it seeds them through creates);
 * - `beside`: the default sandbox; writer i's thousand sit just below its own range, so its
 *   creates, like a sandbox's, start next to plants of its own (with `off` all 50 ranges
 *   start in the same empty stretch of keys, sharing leaves until they grow apart);
 * - `on`: 50 named sandboxes of 1,000 plants, writer i creating in sandbox i.
 *
 *   node dist/test/bench/sandbox-writes.js [creates, 20000] [rounds, 6]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import type { DiskSandbox } from '../../adapters/storage/disk/disk-sandbox.js';
import { tempDir } from '../support/temp-dir.js';
import { quantile } from './stats.js';
import { FIRST_WRITE_ID, newPlant, sandboxName, seedPlant } from './seed-plants.js';

const WRITERS = 50;
const SEEDED = 1000;
const RANGE = 1_000_000;
const LAYOUTS = ['off', 'beside', 'on'] as const;
type Layout = (typeof LAYOUTS)[number];

interface Measured {
  readonly cpuMicroseconds: number;
  readonly userMicroseconds: number;
  /** 4 KiB pages' worth handed to write calls a create (the commits' copied pages); NaN where /proc is not. */
  readonly pagesWritten: number;
}

/** Bytes this process has handed to write calls so far (Linux's /proc/self/io), or NaN. */
function bytesWritten(): number {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** One layout, in this process: CPU µs a create (user + system, and user alone). */
async function measureLayout(layout: Layout, creates: number): Promise<Measured> {
  using dir = tempDir('plant-store-sandbox-writes-');
  const repository = DiskPlantRepository.open(dir.path);
  try {
    const writer = (i: number): DiskPlantRepository | DiskSandbox => (layout === 'on' ? repository.sandbox(sandboxName(i + 1)) : repository);
    const firstCreate = (i: number) => FIRST_WRITE_ID + i * RANGE;
    for (let i = 0; i < WRITERS; i++) {
      const seedBase = layout === 'on' ? 0 : layout === 'beside' ? firstCreate(i) - SEEDED - 1 : i * SEEDED;
      // Seeded plants keep the bench's names and tags, their ids moved to the writer's place.
      await writer(i).addMany(Array.from({ length: SEEDED }, (_, n) => ({ ...seedPlant(n + 1), id: seedBase + n + 1 })));
    }
    const next = Array.from({ length: WRITERS }, (_, i) => firstCreate(i));
    const each = Math.floor(creates / WRITERS);
    const written = bytesWritten();
    const before = process.cpuUsage();
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, i) => {
        for (let n = 0; n < each; n++) {
          if (!(await writer(i).add(newPlant(next[i]!++)))) throw new Error(`${layout}: a create was refused`);
        }
      }),
    );
    const used = process.cpuUsage(before);
    const made = each * WRITERS;
    return { cpuMicroseconds: (used.user + used.system) / made, userMicroseconds: used.user / made, pagesWritten: (bytesWritten() - written) / 4096 / made };
  } finally {
    await repository.close();
  }
}

function main(): void {
  const [creates = '20000', rounds = '6'] = process.argv.slice(2);
  const results = new Map<Layout, Measured[]>(LAYOUTS.map((layout) => [layout, []]));
  for (let round = 1; round <= Number(rounds); round++) {
    // A different layout first each round: the machine's drift falls on each in turn.
    for (let place = 0; place < LAYOUTS.length; place++) {
      const layout = LAYOUTS[(place + round - 1) % LAYOUTS.length]!;
      const said = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', layout, creates], { encoding: 'utf8' });
      const measured = JSON.parse(said) as Measured;
      results.get(layout)!.push(measured);
      process.stderr.write(`round ${round} ${layout}: ${measured.cpuMicroseconds.toFixed(1)} µs a create, ${measured.pagesWritten.toFixed(2)} pages written\n`);
    }
  }
  const median = (layout: Layout, of: keyof Measured) => quantile(results.get(layout)!.map((m) => m[of]), 0.5);
  process.stdout.write(`CPU µs a create on disk, ${WRITERS} writers, ${creates} creates, median of ${rounds} rounds (user alone in brackets), and pages written a create:\n`);
  for (const layout of LAYOUTS) {
    process.stdout.write(`  ${layout.padEnd(7)} ${median(layout, 'cpuMicroseconds').toFixed(1)} (${median(layout, 'userMicroseconds').toFixed(1)})  ${median(layout, 'pagesWritten').toFixed(2)} pages\n`);
  }
  const on = median('on', 'cpuMicroseconds');
  process.stdout.write(`  off ÷ on ${(median('off', 'cpuMicroseconds') / on).toFixed(2)}×, beside ÷ on ${(median('beside', 'cpuMicroseconds') / on).toFixed(2)}×\n`);
}

if (process.argv[2] === '--child') {
  measureLayout(process.argv[3] as Layout, Number(process.argv[4])).then(
    (measured) => process.stdout.write(JSON.stringify(measured)),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
} else {
  main();
}
