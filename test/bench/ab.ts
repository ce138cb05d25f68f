/**
 * A/B of two builds of this server, as shipped, in one run: the build of this checkout (B)
 * against another build's `dist` directory (A), interleaved round by round on W1–W3, with
 * the ratio of requests per server CPU-second (B over A, median of round-by-round ratios).
 * For measuring one hot-path change at a time on a noisy machine.
 *
 *   git worktree add ../baseline <commit> && ln -s "$PWD/node_modules" ../baseline/
 *   (cd ../baseline && npx tsc -p .) && npm run build
 *   node dist/test/bench/ab.js ../baseline/dist [W1,W2,W3] [seconds] [rounds]
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { startPlantStore, type Contender } from './contenders.js';
import { IdSource, workloads, type WorkloadId } from './load.js';
import { pairedRatio } from './run-figures.js';
import { FIRST_WRITE_ID } from './seed-plants.js';
import { interleave, SEEDED_PLANTS, type Settings } from './sections.js';
import { spread } from './stats.js';

async function main(): Promise<void> {
  const [baseline, list = 'W1,W2,W3', seconds = '5', rounds = '5'] = process.argv.slice(2);
  if (baseline === undefined) throw new Error('usage: ab.js <baseline dist directory> [W1,W2,W3] [seconds] [rounds]');
  const token = randomBytes(32).toString('base64url');
  const settings: Settings = { seconds: Number(seconds), rounds: Number(rounds), warmupSeconds: 2, connections: 50, sizes: [SEEDED_PLANTS], sections: new Set() };
  const contenders: Contender[] = [];
  try {
    contenders.push(await startPlantStore({ name: 'A (baseline)', plants: SEEDED_PLANTS, token, distDir: resolve(baseline) }));
    contenders.push(await startPlantStore({ name: 'B (this build)', plants: SEEDED_PLANTS, token }));
    const ids = new IdSource(FIRST_WRITE_ID);
    const lines: string[] = [];
    for (const id of list.split(',') as WorkloadId[]) {
      const [a, b] = await interleave(`A/B ${id}`, contenders, () => workloads[id], ids, settings, { seconds: settings.seconds, connections: settings.connections, token });
      const perCpu = (runs: typeof a.runs) => runs.map((r) => r.requestsPerCpuSecond);
      const r = pairedRatio(perCpu(b!.runs), perCpu(a!.runs));
      const us = (runs: typeof a.runs) => spread(runs.map((x) => 1e6 / x.requestsPerCpuSecond)).median;
      lines.push(`${id}: B/A ${r.median.toFixed(3)}x per CPU-s (rounds ${r.min.toFixed(3)}–${r.max.toFixed(3)}); ${us(a!.runs).toFixed(1)} µs → ${us(b!.runs).toFixed(1)} µs of server CPU a request`);
    }
    for (const line of lines) process.stdout.write(`${line}\n`);
  } finally {
    for (const contender of contenders) await contender.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
