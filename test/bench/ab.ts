/**
 * A/B of builds of this server, as shipped, in one run: other builds' `dist` directories
 * against the first one, interleaved round by round on W1–W3, each with the ratio of its
 * requests per server CPU-second to the first's (median of round-by-round ratios). For
 * measuring hot-path changes one at a time on a noisy machine: give the builds in the order
 * the changes were made, and each row against the row above it is that change's effect.
 *
 *   git worktree add ../step-0 <commit> && ln -s "$PWD/node_modules" ../step-0/
 *   (cd ../step-0 && npx tsc -p .)            # and so on for each step
 *   node dist/test/bench/ab.js ../step-0/dist,../step-1/dist,dist [W1,W2,W3] [seconds] [rounds]
 *
 * A build may carry server variables and node options, or be `koa-floor` (target 1's
 * measure: give it first); see builds.ts. For effects smaller than this machine's noise,
 * count instructions instead (instructions.ts).
 */
import { randomBytes } from 'node:crypto';
import { startBuild } from './builds.js';
import type { Contender } from './contenders.js';
import { IdSource, workloads, type RunResult, type WorkloadId } from './load.js';
import { pairedRatio, perCpuEach } from './run-figures.js';
import { FIRST_WRITE_ID } from './seed-plants.js';
import { interleave, SEEDED_PLANTS, type Settings } from './sections.js';
import { spread } from './stats.js';

async function main(): Promise<void> {
  const [builds, list = 'W1,W2,W3', seconds = '3', rounds = '10'] = process.argv.slice(2);
  if (builds === undefined) throw new Error('usage: ab.js <dist directory>[@KEY=VALUE …],<dist directory>… [W1,W2,W3] [seconds] [rounds]');
  const token = randomBytes(32).toString('base64url');
  const settings: Settings = { seconds: Number(seconds), rounds: Number(rounds), warmupSeconds: 2, connections: 50, sizes: [SEEDED_PLANTS], sections: new Set(), sandboxStorage: 'memory', workersRounds: Number(rounds), sandboxRounds: Number(rounds) };
  const contenders: Contender[] = [];
  try {
    for (const [index, build] of builds.split(',').entries()) contenders.push(await startBuild(build, index, token));
    const ids = new IdSource(FIRST_WRITE_ID);
    const lines: string[] = [];
    for (const id of list.split(',') as WorkloadId[]) {
      const series = await interleave(`A/B ${id}`, contenders, () => workloads[id], ids, settings, { seconds: settings.seconds, connections: settings.connections, token });
      const micros = (runs: readonly RunResult[]) => spread(runs.map((x) => 1e6 / x.requestsPerCpuSecond)).median;
      for (const [index, { contender, runs }] of series.entries()) {
        const first = pairedRatio(perCpuEach(runs), perCpuEach(series[0]!.runs));
        const previous = index === 0 ? undefined : pairedRatio(perCpuEach(runs), perCpuEach(series[index - 1]!.runs));
        lines.push(
          `${id} ${contender}: ${micros(runs).toFixed(1)} µs of server CPU a request; ${first.median.toFixed(3)}x the first per CPU-s` +
            (previous === undefined ? '' : `, ${previous.median.toFixed(3)}x the one above (rounds ${previous.min.toFixed(2)}–${previous.max.toFixed(2)})`),
        );
      }
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
