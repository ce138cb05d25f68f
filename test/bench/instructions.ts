/**
 * Instructions a request costs, counted by valgrind's callgrind rather than timed: a figure
 * this machine's noise does not move (the Koa floor's W3 repeats within 0.3 %, where its
 * CPU time a request moves by ±30 % from one round to the next), for changes too small for
 * the CPU-second A/B (ab.ts). Each build runs alone under callgrind, counting off; after
 * `warm` requests the count is switched on for `count` more. The own cost of the functions
 * in V8's compiler namespaces (code first made hot late, such as once-a-turn work, is still
 * being optimized then) is reported apart, and "steady" is the rest. Only user space is
 * counted, all threads: kernel work (socket reads and writes, wake-ups) and cache misses are
 * not, so a ratio here is no CPU-second ratio. With BENCH_CACHE_SIM=on, callgrind's cache
 * model runs too and its misses a request are reported (a model of the caches, not this CPU).
 *
 *   apt-get install valgrind            (the tests do not need it)
 *   node dist/test/bench/instructions.js koa-floor,dist,dist@PLANT_STORE_LOG_LEVEL=silent [W1|W2|W2own|W3|W4] [warm] [count]
 *   node dist/test/bench/instructions.js dist,dist@BENCH_TOKENS=50,dist@BENCH_SANDBOXES=50 W3
 *     (sandboxes off; 50 tokens, one per connection; 50 sandboxes, one per connection)
 *
 * Builds are named as for ab.ts (builds.ts). Each takes under a minute. With
 * BENCH_KEEP_DUMPS=<directory> each build's callgrind dump is kept there, for
 * `callgrind_annotate` function by function.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { startBuild } from './builds.js';
import { LOOPBACK, type Contender } from './contenders.js';
import { authorized, IdSource, ownRangeCreates, workloads, type Workload, type WorkloadId } from './load.js';
import { FIRST_WRITE_ID } from './seed-plants.js';

interface Count {
  readonly build: string;
  readonly requests: number;
  /** Instructions a request, all threads. */
  readonly total: number;
  /** Of which the own cost of the functions in V8's compiler namespaces. */
  readonly compiler: number;
  /** With BENCH_CACHE_SIM=on: simulated cache misses a request, all threads. */
  readonly misses?: CacheMisses;
}

/** Misses of callgrind's cache model (first-level and last-level, instructions and data). */
interface CacheMisses {
  readonly I1: number;
  readonly D1: number;
  readonly LL: number;
}

// BENCH_CACHE_SIM=on: callgrind also models the caches (slower), for a difference in CPU
// time that the instructions do not show.
const CACHE_SIM = process.env.BENCH_CACHE_SIM === 'on';

// TurboFan, Turboshaft and Maglev: their functions live in these namespaces (what they call
// elsewhere, such as memory allocation, stays in "steady").
const compilerFunction = /v8::internal::(compiler|turboshaft|maglev)::/;

async function main(): Promise<void> {
  const [builds, id = 'W3', warm = '20000', count = '4000'] = process.argv.slice(2);
  if (builds === undefined) throw new Error('usage: instructions.js <build>,<build>… [W1|W2|W2own|W3|W4] [warm-up requests] [counted requests]');
  // W2own: W2 as the sandboxes section makes it, each connection creating in an id range of
  // its own (without it, sandboxes off write at one end of the plants, on in 50 places).
  const workload = id === 'W2own' ? ownRangeCreates() : workloads[id as WorkloadId];
  if (workload === undefined) throw new Error(`no workload ${id}`);
  const token = randomBytes(32).toString('base64url');
  const ids = new IdSource(FIRST_WRITE_ID);
  const counts: Count[] = [];
  for (const [index, build] of builds.split(',').entries()) {
    using dir = tempDir('plant-store-instructions-');
    counts.push(await countBuild(build, index, { dir: dir.path, token, ids, workload, warm: Number(warm), count: Number(count) }));
    const last = counts[counts.length - 1]!;
    process.stderr.write(`${build}: ${report(last, counts[0]!)}\n`);
  }
  for (const c of counts) process.stdout.write(`${id} ${c.build}: ${report(c, counts[0]!)}\n`);
}

function report(c: Count, first: Count): string {
  const steady = c.total - c.compiler;
  const ratio = steady / (first.total - first.compiler);
  const misses = c.misses && `; misses a request: I1 ${Math.round(c.misses.I1)}, D1 ${Math.round(c.misses.D1)}, LL ${Math.round(c.misses.LL)}`;
  return (
    `${Math.round(steady)} instructions a request steady, ${ratio.toFixed(3)}x the first` +
    ` (total ${Math.round(c.total)}, compilers ${Math.round(c.compiler)}; ${c.requests} requests${misses ?? ''})`
  );
}

/** The dump's totals of the cache model's events (its `events:` and `summary:` lines), a request. */
function cacheMisses(dump: string, requests: number): CacheMisses {
  const events = /^events: (.*)$/m.exec(dump)?.[1]?.trim().split(/\s+/);
  const totals = /^(?:summary|totals): (.*)$/m.exec(dump)?.[1]?.trim().split(/\s+/).map(Number);
  if (events === undefined || totals === undefined) throw new Error('no cache events in callgrind\'s dump (was --cache-sim=yes given?)');
  const sum = (...names: string[]) => names.reduce((total, name) => total + (totals[events.indexOf(name)] ?? Number.NaN), 0) / requests;
  return { I1: sum('I1mr'), D1: sum('D1mr', 'D1mw'), LL: sum('ILmr', 'DLmr', 'DLmw') };
}

interface CountOptions {
  readonly dir: string;
  readonly token: string;
  readonly ids: IdSource;
  readonly workload: Workload;
  readonly warm: number;
  readonly count: number;
}

async function countBuild(build: string, index: number, options: CountOptions): Promise<Count> {
  const prefix = join(options.dir, 'vgdb');
  const launcher = ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--vgdb-prefix=${prefix}`, `--callgrind-out-file=${join(options.dir, 'callgrind.%p')}`, ...(CACHE_SIM ? ['--cache-sim=yes'] : [])];
  const contender = await startBuild(build, index, options.token, launcher);
  // valgrind names its control pipe after HOST too: callgrind_control must see the child's
  // (a build given another HOST after `@` cannot be counted).
  const env = { ...process.env, HOST: LOOPBACK };
  // callgrind_control exits 0 whatever happens; only its "OK." says the command was carried out.
  const control = (command: string) => {
    const said = execFileSync('callgrind_control', [`--vgdb-prefix=${prefix}`, command, String(contender.pid)], { env, encoding: 'utf8', timeout: 60_000 });
    if (!said.includes('OK.')) throw new Error(`${build}: callgrind_control ${command} failed: ${said.trim()}`);
  };
  let counted: autocannon.Result;
  try {
    expectAnswered(build, 'warm-up', await send(contender, options, options.warm), options.warm);
    control('--instr=on');
    control('--zero');
    counted = expectAnswered(build, 'counted run', await send(contender, options, options.count), options.count);
    control('--dump');
  } finally {
    await contender.stop();
  }
  const dump = readdirSync(options.dir).find((name) => name.startsWith(`callgrind.${contender.pid}.`));
  if (dump === undefined) throw new Error(`${build}: callgrind wrote no dump for process ${contender.pid} (found: ${readdirSync(options.dir).join(', ') || 'nothing'})`);
  // BENCH_KEEP_DUMPS=<dir>: the dump is copied there, for callgrind_annotate by function.
  const keep = process.env.BENCH_KEEP_DUMPS;
  if (keep) mkdirSync(keep, { recursive: true });
  if (keep) copyFileSync(join(options.dir, dump), join(keep, `callgrind.${index}.${build.replace(/[^\w.=-]+/g, '_')}`));
  const annotated = execFileSync('callgrind_annotate', ['--threshold=100', '--show=Ir', join(options.dir, dump)], { maxBuffer: 1 << 28 }).toString();
  let total = Number.NaN;
  let compiler = 0;
  for (const line of annotated.split('\n')) {
    const row = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (row === null) continue;
    const instructions = Number(row[1]!.replace(/,/g, ''));
    if (row[2] === 'PROGRAM TOTALS') total = instructions;
    else if (compilerFunction.test(row[2]!)) compiler += instructions;
  }
  if (!(total > 0)) throw new Error(`${build}: no program total in callgrind's dump`);
  const requests = counted.requests.total;
  const misses = CACHE_SIM ? cacheMisses(readFileSync(join(options.dir, dump), 'utf8'), requests) : undefined;
  return { build, requests, total: total / requests, compiler: compiler / requests, ...(misses && { misses }) };
}

/** A count is only of requests answered as they should be: a cheap error answer would lower it. */
function expectAnswered(build: string, what: string, result: autocannon.Result, amount: number): autocannon.Result {
  const failed = result.non2xx + result.errors;
  if (failed > 0 || result.requests.total !== amount) {
    throw new Error(`${build}: ${what}: ${result.requests.total} of ${amount} requests done, ${failed} not answered with a 2xx`);
  }
  return result;
}

/** As in the benchmark; a build with BENCH_SANDBOXES=50 has one sandbox per connection. */
const CONNECTIONS = 50;
const TIMEOUT_SECONDS = 120;

function send(contender: Contender, options: CountOptions, amount: number): Promise<autocannon.Result> {
  return autocannon({
    url: contender.url,
    connections: CONNECTIONS,
    amount,
    // Counted, a W1 request (a page of 100) can wait longer than autocannon's default 10 s
    // behind 49 others under callgrind, and a timed-out request fails the count.
    timeout: TIMEOUT_SECONDS,
    ...authorized(contender, options.token, options.workload, options.ids),
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
