/** The sandboxes section's part of BENCHMARKS.md, and its two targets (12 and 13). */
import { decimal, integer, megabytes, ratio, withRange } from './format.js';
import type { RunResult } from './load.js';
import { failures, pairedRatio, perCpuEach, runsOf } from './run-figures.js';
import { MANY, MANY_CONTENDERS, SANDBOX_CONTENDERS, SANDBOX_WINDOW_SECONDS, type SandboxesOutcome } from './sandboxes-section.js';
import type { Series } from './sections.js';
import { spread } from './stats.js';
import { mark, type TargetLine } from './targets.js';

const MIN_ON_VS_OFF = 0.95;
/** "The same cost ± noise": the tolerance target 4 gives a store 1,000 times larger. */
const MIN_MANY_VS_ONE = 0.9;

const titles = {
  12: `Sandboxes on (one sandbox per connection) ≥ ${MIN_ON_VS_OFF}× sandboxes off in requests per server CPU-second on W1, W2, W3`,
  13: `${MANY_CONTENDERS.many}: a page and a get of one sandbox ≥ ${MIN_MANY_VS_ONE}× those with ${MANY_CONTENDERS.one} per server CPU-second (the same cost ± noise)`,
} as const;

const invalid = (failed: number) => (failed > 0 ? ` (invalid: ${failed} non-2xx/errors)` : '');
const perSecond = (runs: readonly RunResult[]) => runs.map((r) => r.requestsPerSecond);
/** Microseconds of server CPU a request, median of the rounds. */
const micros = (runs: readonly RunResult[]) => spread(runs.map((r) => 1e6 / r.requestsPerCpuSecond)).median;

/** `a` against `b` in one set of interleaved series, per server CPU-second and in req/s, round by round. */
function versus(series: readonly Series[], a: string, b: string) {
  const [mine, theirs] = [runsOf(series, a), runsOf(series, b)];
  return { perCpu: pairedRatio(perCpuEach(mine), perCpuEach(theirs)), perSecond: pairedRatio(perSecond(mine), perSecond(theirs)), failed: failures(mine) + failures(theirs) };
}

/** Markdown for the section; `table` renders a series table as the rest of the page does. */
export function renderSandboxes(result: SandboxesOutcome | undefined, table: (series: readonly Series[], firstColumn: string) => string[]): string[] {
  const out = ['## Sandboxes', ''];
  if (result === undefined) return [...out, 'Not run.', ''];
  if ('failed' in result) return [...out, `Failed: ${result.failed}`, ''];
  const n = result.sandboxes;
  out.push(
    `This server on ${result.storage} storage (\`BENCH_SANDBOX_STORAGE\`: memory unless set to disk), three of it, started afresh for each of ${result.rounds} rounds (\`BENCH_SANDBOX_ROUNDS\`, three for each of the run's: one round's ratio is two processes' luck as much as sandboxes), each round a different one started first, and measured first; each server's run of a workload is taken in windows of ${SANDBOX_WINDOW_SECONDS} s, the three servers in turns, and a round's figure is its windows together (one run of the whole length a server let the machine's drift between the servers' runs spread the rounds far wider). The three: **${SANDBOX_CONTENDERS.off}** (one static token, every request in the default sandbox, which holds ${n} × 1,000 plants); **${SANDBOX_CONTENDERS.on}** (${n} static tokens, \`<token> sandbox=<name>\`, one per connection, each naming a sandbox of its own that holds the same 1,000 plants; its default sandbox is empty); and, to tell what the sandboxes cost from what more tokens cost, **${SANDBOX_CONTENDERS.tokens}** (the same ${n} tokens, all \`sandbox=default\`, which holds ${n} × 1,000 plants). So every request does the same work on as much data: W1 lists the first 100 plants of its sandbox, or, without sandboxes, connection i the 100 after id (i − 1) × 1,000; W3 gets seeded ids of its sandbox, or ids shifted by (i − 1) × 1,000; W2: each connection creates new ids in a range of its own, in its sandbox or, without sandboxes, in the one collection, so every server writes the same plants (before, every connection took the next id of one count: one place of insertion without sandboxes, one a sandbox with them). Each server reads 1,000 plants a connection over a run: compared with the same 1,000 read by every connection, a server with sandboxes would read 50 times the data, and miss the CPU's caches for it, not for sandboxes (docs/benchmarks.md, Sandboxes). Reads are measured first, on the seeded plants alone, then creates. Every server is seeded at start-up through the embedded API (\`store.create\`, \`store.sandbox(name).create\`), on disk 1,000 creates at a time in every server (one at a time, the servers without sandboxes were filled by 1,000 times as many commits, which left their later creates slower).`,
    '',
  );
  for (const id of ['W1', 'W3', 'W2'] as const) {
    const series = result.versus[id];
    const on = versus(series, SANDBOX_CONTENDERS.on, SANDBOX_CONTENDERS.off);
    const tokens = versus(series, SANDBOX_CONTENDERS.tokens, SANDBOX_CONTENDERS.off);
    const own = versus(series, SANDBOX_CONTENDERS.on, SANDBOX_CONTENDERS.tokens);
    out.push(`### ${id}`, '', ...table(series, 'server'), '');
    out.push(
      `Sandboxes on against off: ${withRange(on.perCpu, ratio)} per server CPU-second, ${withRange(on.perSecond, ratio)} in req/s; of which ${n} tokens instead of one: ${withRange(tokens.perCpu, ratio)}, and the sandboxes themselves (on against ${n} tokens in the default sandbox): ${withRange(own.perCpu, ratio)}. Server CPU a request: ${decimal(micros(runsOf(series, SANDBOX_CONTENDERS.off)))} µs off, ${decimal(micros(runsOf(series, SANDBOX_CONTENDERS.tokens)))} µs with ${n} tokens, ${decimal(micros(runsOf(series, SANDBOX_CONTENDERS.on)))} µs on.`,
      '',
    );
  }
  const { many } = result;
  out.push(`### ${MANY_CONTENDERS.many}`, '');
  out.push(
    `Two servers up side by side: one whose storage holds ${MANY_CONTENDERS.one}, one holding ${MANY_CONTENDERS.many} (${integer(MANY.sandboxes * MANY.plants)} plants), both asked by one static token naming the same sandbox (number ${integer(MANY.asked)} of the ${integer(MANY.sandboxes)}). A page \`GET /plants?limit=${MANY.plants}\` (the whole sandbox) and a get \`GET /plants/{id}\` over its ids 1–${MANY.plants}, interleaved. A page costs O(limit + log N) whatever the other sandboxes hold, so the two should cost the same. Seeding took ${decimal(many.preloadSeconds[0])} s and ${decimal(many.preloadSeconds[1])} s; RSS after seeding, after a forced GC: ${megabytes(many.memory[0]?.rss)} and ${megabytes(many.memory[1]?.rss)} (V8 heap used ${megabytes(many.memory[0]?.heapUsed)} and ${megabytes(many.memory[1]?.heapUsed)}).`,
    '',
  );
  for (const [id, what] of [
    ['W1', `page of ${MANY.plants}`],
    ['W3', 'get one plant'],
  ] as const) {
    const series = many[id];
    const r = versus(series, MANY_CONTENDERS.many, MANY_CONTENDERS.one);
    out.push(`#### ${what}`, '', ...table(series, 'storage holds'), '');
    out.push(
      `${MANY_CONTENDERS.many} against ${MANY_CONTENDERS.one}: ${withRange(r.perCpu, ratio)} per server CPU-second, ${withRange(r.perSecond, ratio)} in req/s; ${decimal(micros(runsOf(series, MANY_CONTENDERS.many)))} µs against ${decimal(micros(runsOf(series, MANY_CONTENDERS.one)))} µs of server CPU a request.`,
      '',
    );
  }
  return out;
}

export function sandboxesTargets(result: SandboxesOutcome | undefined): TargetLine[] {
  if (result === undefined) return ([12, 13] as const).map((target) => ({ verdict: 'SKIP', text: `${target}. ${titles[target]} — sandboxes section not run` }));
  if ('failed' in result) return ([12, 13] as const).map((target) => ({ verdict: 'FAIL', text: `${target}. ${titles[target]} — the section failed: ${result.failed}` }));
  const on = (['W1', 'W2', 'W3'] as const).map((id) => {
    const r = versus(result.versus[id], SANDBOX_CONTENDERS.on, SANDBOX_CONTENDERS.off);
    return { id, r: r.perCpu, failed: r.failed, ok: r.perCpu.median >= MIN_ON_VS_OFF && r.failed === 0 };
  });
  const many = (['W1', 'W3'] as const).map((id) => {
    const r = versus(result.many[id], MANY_CONTENDERS.many, MANY_CONTENDERS.one);
    return { id: id === 'W1' ? 'page' : 'get', r: r.perCpu, failed: r.failed, ok: r.perCpu.median >= MIN_MANY_VS_ONE && r.failed === 0 };
  });
  const line = (parts: typeof on | typeof many) => parts.map((p) => `${p.id} ${withRange(p.r, ratio)} ${mark(p.ok)}${invalid(p.failed)}`).join(', ');
  return [
    { verdict: on.every((p) => p.ok) ? 'PASS' : 'FAIL', text: `12. ${titles[12]}: ${line(on)}` },
    { verdict: many.every((p) => p.ok) ? 'PASS' : 'FAIL', text: `13. ${titles[13]}: ${line(many)}` },
  ];
}
