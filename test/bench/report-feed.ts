/** The feed section's part of BENCHMARKS.md, and its targets (14 and 15). */
import { decimal, integer, megabytes, ratio, withRange } from './format.js';
import { FAN_OUT } from './feed-fanout.js';
import { CATCH_UP_TIMEOUT_MS, FEED_CONTENDERS, FEED_STREAMS_W2, type FeedOutcome, type FeedW2 } from './feed-section.js';
import { STALLED, type StalledRun } from './feed-stalled.js';
import { LIST_LIMIT } from './load.js';
import { failures, pairedRatio, perCpuEach, runsOf } from './run-figures.js';
import { SEEDED_PLANTS, type Series } from './sections.js';
import { spread, type Latency } from './stats.js';
import { mark, type TargetLine } from './targets.js';

const MIN_IDLE_VS_NONE = 0.9;
/** The slowest list allowed while the writes run: the lister's own limit, past which it gives up and counts the list failed. */
const MAX_LIST_MS = STALLED.listTimeoutMs;

const titles = {
  14: `W2 with ${FEED_STREAMS_W2} idle change-feed streams open ≥ ${MIN_IDLE_VS_NONE}× W2 with none in requests per server CPU-second`,
  15: `${STALLED.streams} feed streams that never read while ${integer(STALLED.changes)} creates are written: each ended by the server, a reading stream given every event, list requests answered throughout, each within ${integer(MAX_LIST_MS)} ms (RSS reported)`,
} as const;

const ms = (n: number) => `${decimal(n)} ms`;

/** Idle against none, and following against none with the CPU its streams took to catch up after each run (median over the measured runs). */
function ratios(w2: FeedW2) {
  const none = runsOf(w2.series, FEED_CONTENDERS.none);
  const idle = runsOf(w2.series, FEED_CONTENDERS.idle);
  const following = runsOf(w2.series, FEED_CONTENDERS.following);
  const followingPerCpu = following.map((r) => r.requests / (r.serverCpuSeconds + (w2.catchUpCpu.get(r) ?? 0)));
  return {
    idle: pairedRatio(perCpuEach(idle), perCpuEach(none)),
    following: pairedRatio(followingPerCpu, perCpuEach(none)),
    // Target 14 compares idle with none: the following server's failures show in its own row.
    failed: failures(none) + failures(idle),
    // The measured runs only: catchUpCpu holds the warm-up's too.
    catchUpCpu: spread(following.map((r) => w2.catchUpCpu.get(r) ?? Number.NaN)),
  };
}

/** Markdown for the section; `table` renders a series table as the rest of the page does. */
export function renderFeed(result: FeedOutcome | undefined, table: (series: readonly Series[], firstColumn: string) => string[]): string[] {
  const out = ['## Change feed', ''];
  if (result === undefined) return [...out, 'Not run.', ''];
  if ('failed' in result) return [...out, `Failed: ${result.failed}`, ''];
  out.push(
    `Every server on memory storage, as shipped (request log on, rate limit off). The feed clients run in the runner's process: raw \`GET /plants/changes\` streams over \`node:http\` with a minimal Server-Sent Events parser (${integer(FAN_OUT.streams)} \`EventSource\` clients would weigh on the runner; the tests check the feed with a real one), and raw sockets that send the request and never read.`,
    '',
  );
  const { fanOut } = result;
  const perStream = (key: 'rss' | 'heapUsed') => (fanOut.memory.open[key] - fanOut.memory.none[key]) / FAN_OUT.streams;
  out.push(`### Fan-out to ${integer(FAN_OUT.streams)} streams`, '');
  out.push(
    `One server, ${integer(FAN_OUT.streams)} streams of its default sandbox open (in ${decimal(fanOut.openSeconds)} s, ${FAN_OUT.openBatch} at a time). Creates one at a time, each after the one before had reached every stream and ${FAN_OUT.gapMs} ms more: ${FAN_OUT.warmUp} untimed, then ${FAN_OUT.creates} timed. **Commit** is when the server recorded the change: the bench server's own watcher of the change log, added before any stream, is called in the same synchronous step (\`BENCH_COMMIT_TIMES\`, \`test/bench/plant-store-server.ts\`), on the monotonic clock every process of the machine shares. **Arrival** is when the runner read the chunk carrying the event from that stream's socket; it reads the ${integer(FAN_OUT.streams)} sockets one after another, so the last arrival includes its own reading.`,
    '',
    '| from → to | p50 | p99 | max |',
    '|---|---:|---:|---:|',
    ...(
      [
        ['commit → the last stream', fanOut.commitToLast],
        ['commit → the first stream', fanOut.commitToFirst],
        ["the create's answer (in the runner) → the last stream", fanOut.answerToLast],
      ] as [string, Latency][]
    ).map(([what, l]) => `| ${what} | ${ms(l.p50Ms)} | ${ms(l.p99Ms)} | ${ms(l.maxMs)} |`),
    '',
    `${integer(fanOut.complete)} of ${integer(FAN_OUT.creates)} timed creates reached every stream within ${FAN_OUT.timeoutMs / 1000} s; ${integer(fanOut.ended)} streams ended before the last.`,
    '',
    `Memory, after a forced GC (\`global.gc()\` twice), ${FAN_OUT.settleMs / 1000} s after the last stream opened: RSS ${megabytes(fanOut.memory.none.rss)} with no stream open (after ${FAN_OUT.warmUp} creates to ${FAN_OUT.warmUpStreams} streams, closed, so that the feed's code is compiled) and ${megabytes(fanOut.memory.open.rss)} with ${integer(FAN_OUT.streams)} idle ones: **${decimal(perStream('rss') / 1024)} KiB of RSS an idle stream** (V8 heap used ${megabytes(fanOut.memory.none.heapUsed)} and ${megabytes(fanOut.memory.open.heapUsed)}: ${decimal(perStream('heapUsed') / 1024)} KiB a stream).`,
    '',
  );

  out.push('### Streams that never read', '');
  out.push(
    `${STALLED.streams} raw sockets each send \`GET /plants/changes\` and never read, while ${integer(STALLED.changes)} creates are written over ${STALLED.writers} connections (autocannon); beside them one stream reads every event, and another client lists plants (\`GET /plants?limit=${LIST_LIMIT}\`, one at a time, ${STALLED.listPauseMs} ms apart; one not answered within ${integer(STALLED.listTimeoutMs)} ms counts as failed). Each run is a fresh server holding ${integer(SEEDED_PLANTS)} plants, with metrics on for its gauge of open streams; the same run without the stalled streams tells what they cost. RSS is sampled every ${STALLED.rssSampleMs} ms from the first write until the later of the reading stream having every event (or ${STALLED.readerTimeoutMs / 1000} s after the writes) and the server having ended every stalled stream (or ${STALLED.endTimeoutMs / 1000} s after the writes); "after" is after a forced GC then (the ${integer(STALLED.changes)} plants and their changes are retained).`,
    '',
    '| stalled streams | creates (s) | RSS before | RSS peak | RSS after (V8 heap used) | stalled streams ended by the server | all ended, s after the first write | events the reading stream got | lists: answered, p50 / p99 / max |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...result.stalled.map(
      (run) =>
        `| ${run.stalled} | ${integer(run.written)}${run.writeFailures ? ` (⚠ ${integer(run.writeFailures)} failed)` : ''} (${decimal(run.writeSeconds)} s) | ${megabytes(run.rssBefore)} | ${megabytes(run.rssPeak)} | ${megabytes(run.after?.rss)} (${megabytes(run.after?.heapUsed)}) | ${run.stalled === 0 ? '–' : `${run.endedByServer} of ${run.stalled}`} | ${run.stalled === 0 ? '–' : decimal(run.endedAtSeconds)} | ${integer(run.readerEvents)} of ${integer(run.written)}${run.readerOpen ? '' : ' (⚠ ended)'} | ${integer(run.lists.count - run.lists.failed)} of ${integer(run.lists.count)}, ${ms(run.lists.p50Ms)} / ${ms(run.lists.p99Ms)} / ${ms(run.lists.maxMs)} |`,
    ),
    '',
  );

  const { w2 } = result;
  const r = ratios(w2);
  out.push(`### W2 with ${FEED_STREAMS_W2} streams open`, '');
  out.push(
    `Three servers up side by side, the same tokens on each, interleaved: **${FEED_CONTENDERS.none}**; **${FEED_CONTENDERS.idle}**, following a sandbox nobody writes to, so that they carry nothing but keep-alive comments; **${FEED_CONTENDERS.following}** (the default sandbox, W2's: every create is written to each of them). After each run of the last, its streams are waited for until they have every create, and the server CPU spent meanwhile is counted with the run's.`,
    '',
    ...table(w2.series, 'server'),
    '',
    `- ${FEED_CONTENDERS.idle} against ${FEED_CONTENDERS.none}: ${withRange(r.idle, ratio)} per server CPU-second (round by round). Idle streams ended during the runs: ${w2.idleEnded}; plant events they received: ${integer(w2.idleEvents)}.`,
    `- ${FEED_CONTENDERS.following} against ${FEED_CONTENDERS.none}: ${withRange(r.following, ratio)} per server CPU-second, catch-up included (median catch-up ${ms(1000 * r.catchUpCpu.median)} of server CPU a run${w2.lateCatchUps > 0 ? `; ⚠ after ${w2.lateCatchUps} runs, warm-up included, the streams had not every create within ${CATCH_UP_TIMEOUT_MS / 1000} s` : ''}). Streams that received every acknowledged create: ${w2.followingComplete} of ${FEED_STREAMS_W2}; ended: ${w2.followingEnded}.`,
    '',
  );
  return out;
}

export function feedTargets(result: FeedOutcome | undefined): TargetLine[] {
  if (result === undefined) return ([14, 15] as const).map((target) => ({ verdict: 'SKIP', text: `${target}. ${titles[target]} — feed section not run` }));
  if ('failed' in result) return ([14, 15] as const).map((target) => ({ verdict: 'FAIL', text: `${target}. ${titles[target]} — the section failed: ${result.failed}` }));
  const r = ratios(result.w2);
  const idleOk = r.idle.median >= MIN_IDLE_VS_NONE && r.failed === 0 && result.w2.idleEnded === 0 && result.w2.idleEvents === 0;
  const readerServed = (run: StalledRun) => run.readerEvents === run.written && run.readerOpen;
  // maxMs is NaN when no list was answered: that fails too.
  const served = (run: StalledRun) => run.writeFailures === 0 && readerServed(run) && run.lists.failed === 0 && run.lists.maxMs <= MAX_LIST_MS;
  const withStalled = result.stalled.filter((run) => run.stalled > 0);
  const without = result.stalled.filter((run) => run.stalled === 0);
  const stalledOk = withStalled.length > 0 && result.stalled.every(served) && withStalled.every((run) => run.endedByServer === run.stalled && run.openAfter <= 1);
  const peaks = (runs: readonly StalledRun[]) => runs.map((run) => megabytes(run.rssPeak)).join(', ');
  const short = result.stalled.filter((run) => !readerServed(run));
  const reader =
    short.length === 0
      ? 'the reading stream got every event'
      : short.map((run) => `the reading stream got ${integer(run.readerEvents)} of ${integer(run.written)}${run.readerOpen ? '' : ' and ended'} (${run.stalled} stalled)`).join(', ');
  const total = (of: (run: StalledRun) => number) => result.stalled.reduce((n, run) => n + of(run), 0);
  const writeFailures = total((run) => run.writeFailures);
  const slowest = Math.max(...result.stalled.map((run) => run.lists.maxMs));
  return [
    {
      verdict: idleOk ? 'PASS' : 'FAIL',
      text: `14. ${titles[14]}: ${withRange(r.idle, ratio)} ${mark(idleOk)}${r.failed > 0 ? ` (invalid: ${r.failed} non-2xx/errors)` : ''}${result.w2.idleEnded > 0 ? ` (${result.w2.idleEnded} idle streams ended)` : ''}${result.w2.idleEvents > 0 ? ` (idle streams received ${integer(result.w2.idleEvents)} plant events)` : ''}`,
    },
    {
      verdict: stalledOk ? 'PASS' : 'FAIL',
      text: `15. ${titles[15]}: ${withStalled.map((run) => `${run.endedByServer} of ${run.stalled} ended`).join(', ')}; ${reader}; lists ${integer(total((run) => run.lists.count - run.lists.failed))} of ${integer(total((run) => run.lists.count))} answered, the slowest in ${ms(slowest)}${writeFailures > 0 ? `; ⚠ ${integer(writeFailures)} creates failed` : ''} ${mark(stalledOk)}; RSS peak ${peaks(withStalled)} with them, ${peaks(without)} without (before: ${megabytes(spread(result.stalled.map((run) => run.rssBefore)).median)})`,
    },
  ];
}
