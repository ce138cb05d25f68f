/**
 * The feed's fan-out (part of the feed section): one server on memory, 1,000 streams of its
 * default sandbox open from this process. First the resident memory an idle stream costs,
 * then creates one at a time, each timed from its commit in the server to its arrival at
 * the last of the 1,000 streams.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { megabytes } from './format.js';
import { startPlantStore, type Contender, type Memory } from './contenders.js';
import { nowMs } from './child-protocol.js';
import { openStream, type FeedStream } from './feed-streams.js';
import { IdSource } from './load.js';
import { progress } from './sections.js';
import { FIRST_WRITE_ID, newPlantBody } from './seed-plants.js';
import { latencyOf, type Latency } from './stats.js';

export const FAN_OUT = {
  streams: 1000,
  /** Creates timed; before them, `warmUp` creates that are not. */
  creates: 300,
  warmUp: 30,
  /** Pause after a create reached every stream, so that fan-outs never overlap. */
  gapMs: 20,
  /** Streams opened at once (the rest wait): the listen backlog is not what is measured. */
  openBatch: 100,
  /** A create not at every stream by then counts as late, and the next one goes. */
  timeoutMs: 10_000,
  /** Wait after the streams opened before reading memory: the server has finished with their requests. */
  settleMs: 2000,
  /** Streams the warm-up creates go to before the baseline with none is read. */
  warmUpStreams: 10,
} as const;

export interface FanOutResult {
  /** From the commit (noted in the server, see plant-store-server.ts) to the event's arrival at the last stream. */
  readonly commitToLast: Latency;
  /** The same, to the first stream. */
  readonly commitToFirst: Latency;
  /** From the create's answer reaching this process to the event's arrival at the last stream (negative: the events came first). */
  readonly answerToLast: Latency;
  /** Timed creates that reached every stream, of FAN_OUT.creates. */
  readonly complete: number;
  /** Seconds the 1,000 streams took to open. */
  readonly openSeconds: number;
  /** After a forced GC: with none of the streams open (after a warm-up), and with all of them open and idle. */
  readonly memory: { readonly none: Memory; readonly open: Memory };
  /** Streams that ended before the last create (none should). */
  readonly ended: number;
}

/** Where each plant's event has arrived: how many streams, first and last. */
class Arrivals {
  private readonly seen = new Map<number, { count: number; first: number; last: number; expected: number; done: () => void }>();

  /** Resolves true once plant `id` has reached `streams` streams, false after FAN_OUT.timeoutMs. */
  expect(id: number, streams: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), FAN_OUT.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.seen.set(id, { count: 0, first: Number.NaN, last: Number.NaN, expected: streams, done });
    });
  }

  note(type: string, data: string, at: number): void {
    if (type !== 'plant.created') return;
    const entry = this.seen.get((JSON.parse(data) as { id: number }).id);
    if (entry === undefined) return;
    if (entry.count++ === 0) entry.first = at;
    entry.last = at;
    if (entry.count === entry.expected) entry.done();
  }

  of(id: number) {
    return this.seen.get(id)!;
  }
}

export async function fanOut(token: string): Promise<FanOutResult> {
  progress(`feed fan-out: starting this server (memory), noting commit times`);
  const server = await startPlantStore({ name: 'feed fan-out', plants: 0, token, env: { BENCH_COMMIT_TIMES: 'on' } });
  const arrivals = new Arrivals();
  const ids = new IdSource(FIRST_WRITE_ID);
  let streams: FeedStream[] = [];
  try {
    // The feed's code compiled and its first allocations made before the baseline is read.
    const few = await openMany(server, token, FAN_OUT.warmUpStreams, arrivals);
    for (let i = 0; i < FAN_OUT.warmUp; i++) await createAndWait(server, token, ids.take(), few.length, arrivals);
    few.forEach((stream) => stream.close());
    await sleep(FAN_OUT.settleMs);
    const none = await server.memory();

    const opening = performance.now();
    streams = await openMany(server, token, FAN_OUT.streams, arrivals);
    const openSeconds = (performance.now() - opening) / 1000;
    await sleep(FAN_OUT.settleMs);
    const open = await server.memory();
    if (none === undefined || open === undefined) throw new Error('feed fan-out: the server did not report its memory');
    progress(`feed fan-out: ${FAN_OUT.streams} streams open in ${openSeconds.toFixed(1)} s; RSS ${megabytes(none.rss)} with none, ${megabytes(open.rss)} with them (after a forced GC)`);

    for (let i = 0; i < FAN_OUT.warmUp; i++) await createAndWait(server, token, ids.take(), streams.length, arrivals);
    await server.commitTimes!();
    const timed: { id: number; answeredAt: number; complete: boolean }[] = [];
    for (let i = 0; i < FAN_OUT.creates; i++) {
      timed.push(await createAndWait(server, token, ids.take(), streams.length, arrivals));
      await sleep(FAN_OUT.gapMs);
    }
    const committedAt = await server.commitTimes!();
    const complete = timed.filter((t) => t.complete && committedAt.has(t.id));
    const latency = (of: (t: (typeof complete)[number]) => number): Latency => latencyOf(complete.map(of));
    const result: FanOutResult = {
      commitToLast: latency((t) => arrivals.of(t.id).last - committedAt.get(t.id)!),
      commitToFirst: latency((t) => arrivals.of(t.id).first - committedAt.get(t.id)!),
      answerToLast: latency((t) => arrivals.of(t.id).last - t.answeredAt),
      complete: complete.length,
      openSeconds,
      memory: { none, open },
      ended: streams.filter((stream) => stream.ended).length,
    };
    progress(
      `feed fan-out: commit → last of ${FAN_OUT.streams} streams p50 ${result.commitToLast.p50Ms.toFixed(1)} ms, p99 ${result.commitToLast.p99Ms.toFixed(1)} ms ` +
        `(→ first p50 ${result.commitToFirst.p50Ms.toFixed(1)} ms; answer → last p50 ${result.answerToLast.p50Ms.toFixed(1)} ms); ${result.complete} of ${FAN_OUT.creates} creates reached every stream`,
    );
    return result;
  } finally {
    streams.forEach((stream) => stream.close());
    await server.stop();
  }
}

/** Opens `count` streams, `FAN_OUT.openBatch` at a time, each handing its events to `arrivals`. */
async function openMany(server: Contender, token: string, count: number, arrivals: Arrivals): Promise<FeedStream[]> {
  const streams: FeedStream[] = [];
  while (streams.length < count) {
    const batch = Math.min(FAN_OUT.openBatch, count - streams.length);
    streams.push(...(await Promise.all(Array.from({ length: batch }, () => openStream(server.url, token, { onEvent: (type, data, at) => arrivals.note(type, data, at) })))));
  }
  return streams;
}

/** Creates plant `id` and waits until its event has reached all `streams`, or FAN_OUT.timeoutMs. */
async function createAndWait(server: Contender, token: string, id: number, streams: number, arrivals: Arrivals) {
  const arrived = arrivals.expect(id, streams);
  const response = await fetch(`${server.url}/plants`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: newPlantBody(id) });
  const answeredAt = nowMs();
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`feed fan-out: a create answered ${response.status}`);
  return { id, answeredAt, complete: await arrived };
}

