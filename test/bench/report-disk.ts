/** The disk section's part of BENCHMARKS.md, and its three targets (7–9; 6 is the access section's). */
import { DISK_CONTENDERS, type DiskResult } from './disk-section.js';
import { decimal, integer, megabytes, ratio, withRange } from './format.js';
import { failures, pairedRatio, runsOf } from './run-figures.js';
import type { Series } from './sections.js';
import { mark, type TargetLine } from './targets.js';

const MIN_DISK_VS_MEMORY = { W1: 0.8, W2: 0.5 } as const;
const MIN_DISK_LARGEST_VS_SMALLEST = 0.9;
const MAX_DISK_RSS_BYTES = 200e6;
const MAX_IMPORT_SECONDS = 60;

const titles = {
  7: `Disk storage ≥ ${MIN_DISK_VS_MEMORY.W1}× memory storage on W1 and ≥ ${MIN_DISK_VS_MEMORY.W2}× on W2 (throughput, req/s)`,
  8: `Disk: W1 at 1,000,000 plants ≥ ${MIN_DISK_LARGEST_VS_SMALLEST}× W1 at 1,000 per CPU-second; RSS at 1,000,000 plants ≤ ${megabytes(MAX_DISK_RSS_BYTES)}`,
  9: `Import of 1,000,000 plants into an empty data directory ≤ ${MAX_IMPORT_SECONDS} s`,
} as const;

const invalid = (failed: number) => (failed > 0 ? ` (invalid: ${failed} non-2xx/errors)` : '');
const verdict = (ok: boolean): TargetLine['verdict'] => (ok ? 'PASS' : 'FAIL');

/** Markdown for the section; `table` renders a series table as the rest of the page does. */
export function renderDisk(disk: DiskResult | undefined, table: (series: readonly Series[], firstColumn: string) => string[]): string[] {
  const out = ['## Disk storage', ''];
  if (disk === undefined) return [...out, 'Not run.', ''];
  const [smallest, largest] = disk.sizes.map((n) => n.toLocaleString('en-US'));
  out.push(
    `This server on disk storage (${disk.storage.split(' ')[0]} in a temporary data directory; every create acknowledged after LMDB's fsync) against the same server on memory storage, both holding 1,000 plants, interleaved. Disk stores are filled with \`plant-store import\` (the server then starts with \`BENCH_PLANTS=0\`), memory stores through \`create\`. Ratios here are throughput (req/s): a durable write waits for the disk, which costs time but no CPU, so per-CPU-second figures would hide it.`,
    '',
  );
  for (const id of ['W1', 'W2'] as const) {
    out.push(`### ${id}`, '', ...table(disk.versusMemory[id], 'storage'), '');
  }
  out.push(`### W1 on disk at ${smallest} and ${largest} plants`, '', ...table(disk.scaling, 'store'), '');
  out.push(`Resident memory of the server holding ${largest} plants on disk after the rounds, after a forced GC: ${megabytes(disk.largestMemory?.rss)} (V8 heap used ${megabytes(disk.largestMemory?.heapUsed)}). LMDB maps its file into memory, so pages read from it count in RSS; they are the kernel's page cache and are given back under memory pressure.`, '');
  out.push(`### Import`, '', `\`plant-store import\` of ${disk.import.plants.toLocaleString('en-US')} plants (JSON Lines, ${megabytes(disk.import.fileBytes)}) into an empty data directory, as its own process: ${decimal(disk.import.seconds)} s, ${integer(disk.import.plants / disk.import.seconds)} plants/s.`, '');
  return out;
}

export function diskTargets(disk: DiskResult | undefined): TargetLine[] {
  if (disk === undefined) return ([7, 8, 9] as const).map((target) => ({ verdict: 'SKIP', text: `${target}. ${titles[target]} — disk section not run` }));
  const versus = (['W1', 'W2'] as const).map((id) => {
    const series = disk.versusMemory[id];
    const diskRuns = runsOf(series, DISK_CONTENDERS.disk);
    const memoryRuns = runsOf(series, DISK_CONTENDERS.memory);
    const r = pairedRatio(diskRuns.map((x) => x.requestsPerSecond), memoryRuns.map((x) => x.requestsPerSecond));
    const failed = failures(diskRuns) + failures(memoryRuns);
    return { id, r, failed, ok: r.median >= MIN_DISK_VS_MEMORY[id] && failed === 0 };
  });
  const [small, large] = [disk.scaling[0]!.runs, disk.scaling[1]!.runs];
  const scaling = pairedRatio(large.map((x) => x.requestsPerCpuSecond), small.map((x) => x.requestsPerCpuSecond));
  const scalingFailed = failures(small) + failures(large);
  const standard = disk.sizes[0] === 1000 && disk.sizes[1] === 1_000_000;
  const scalingOk = scaling.median >= MIN_DISK_LARGEST_VS_SMALLEST && scalingFailed === 0;
  const rss = disk.largestMemory?.rss ?? Number.NaN;
  const memoryOk = rss <= MAX_DISK_RSS_BYTES;
  const importOk = disk.import.plants === 1_000_000 && disk.import.seconds <= MAX_IMPORT_SECONDS;
  return [
    {
      verdict: verdict(versus.every((v) => v.ok)),
      text: `7. ${titles[7]}: ${versus.map((v) => `${v.id} ${withRange(v.r, ratio)} ${mark(v.ok)}${invalid(v.failed)}`).join(', ')}`,
    },
    {
      verdict: verdict(scalingOk && memoryOk && standard),
      text: `8. W1 on disk at ${disk.sizes[1].toLocaleString('en-US')} vs ${disk.sizes[0].toLocaleString('en-US')} plants${standard ? '' : ' (not the standard sizes)'}: ${ratio(scaling.median)} per CPU-second (≥ ${MIN_DISK_LARGEST_VS_SMALLEST}×) ${mark(scalingOk)}${invalid(scalingFailed)}; RSS ${megabytes(rss)} (≤ ${megabytes(MAX_DISK_RSS_BYTES)}) ${mark(memoryOk)}`,
    },
    {
      verdict: verdict(importOk),
      text: `9. ${titles[9]}: ${disk.import.plants.toLocaleString('en-US')} plants in ${decimal(disk.import.seconds)} s, ${integer(disk.import.plants / disk.import.seconds)} plants/s ${mark(importOk)}`,
    },
  ];
}
