/**
 * The change feed's cost (BENCH_SECTIONS=feed runs it alone), every server on memory, every
 * client in this process (the servers are processes of their own):
 * - fan-out: 1,000 streams on one server, latency from commit to the last of them, and the
 *   resident memory of an idle stream (feed-fanout.ts);
 * - streams that never read while 100,000 creates are written, against the same without
 *   them (feed-stalled.ts);
 * - W2 with 100 idle streams open against none, interleaved: idle streams follow a sandbox
 *   nobody writes to, so they carry nothing but keep-alives. A third server has 100 streams
 *   following the sandbox W2 writes to (every create written 100 times): reported, not a target.
 */
import { eventually } from '../support/eventually.js';
import { startPlantStore, type Contender } from './contenders.js';
import { fanOut, type FanOutResult } from './feed-fanout.js';
import { stalledRun, STALLED, type StalledRun } from './feed-stalled.js';
import { openStream, type FeedStream } from './feed-streams.js';
import { IdSource, workloads, type RunResult } from './load.js';
import { interleave, progress, type Series, type Settings } from './sections.js';
import { FIRST_WRITE_ID } from './seed-plants.js';

export const FEED_STREAMS_W2 = 100;
export const FEED_CONTENDERS = {
  none: 'no streams',
  idle: `${FEED_STREAMS_W2} idle streams`,
  following: `${FEED_STREAMS_W2} streams following the writes`,
} as const;
/** The sandbox the idle streams follow: W2 writes to the default one. */
const IDLE_SANDBOX = 'feed-idle';
/** Runs of the stalled-stream measure: with the stalled streams, then without, this many times. */
const STALLED_ROUNDS = 2;
/** How long the following streams may take to receive a run's creates once it has ended. */
export const CATCH_UP_TIMEOUT_MS = 60_000;

export interface FeedW2 {
  readonly series: Series[];
  /** Server CPU the following server spent after each run (warm-up too) until its streams had every create of it, or CATCH_UP_TIMEOUT_MS. */
  readonly catchUpCpu: ReadonlyMap<RunResult, number>;
  /** Runs after which the following streams had not every create by CATCH_UP_TIMEOUT_MS (should be 0). */
  readonly lateCatchUps: number;
  /** Idle streams that ended during the runs, and plant events they received (both should be 0). */
  readonly idleEnded: number;
  readonly idleEvents: number;
  /** Following streams that ended during the runs (should be 0), and those that received every acknowledged create. */
  readonly followingEnded: number;
  readonly followingComplete: number;
}

export interface FeedResult {
  readonly fanOut: FanOutResult;
  /** With the stalled streams (STALLED.streams) and without (0), alternately. */
  readonly stalled: readonly StalledRun[];
  readonly w2: FeedW2;
}

/** The section's outcome: its figures, or why it could not be measured. */
export type FeedOutcome = FeedResult | { readonly failed: string };

export async function feedSection(settings: Settings, token: string): Promise<FeedOutcome> {
  try {
    const fan = await fanOut(token);
    const stalled: StalledRun[] = [];
    for (let round = 0; round < STALLED_ROUNDS; round++) {
      stalled.push(await stalledRun(token, STALLED.streams));
      stalled.push(await stalledRun(token, 0));
    }
    const w2 = await w2WithStreams(settings, token);
    return { fanOut: fan, stalled, w2 };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    progress(`feed: failed: ${reason}`);
    return { failed: reason };
  }
}

async function w2WithStreams(settings: Settings, token: string): Promise<FeedW2> {
  const idleToken = `${token}.idle`;
  // The same tokens on every server, so that a request's token check costs the same.
  const env = { PLANT_STORE_TOKENS: `${token},${idleToken} sandbox=${IDLE_SANDBOX}` };
  const servers: Contender[] = [];
  const idle: FeedStream[] = [];
  const following: FeedStream[] = [];
  try {
    progress(`feed W2: starting this server three times: ${Object.values(FEED_CONTENDERS).join(', ')}`);
    for (const name of Object.values(FEED_CONTENDERS)) servers.push(await startPlantStore({ name, plants: 0, token, env }));
    const [none, withIdle, withFollowing] = servers as [Contender, Contender, Contender];
    for (let i = 0; i < FEED_STREAMS_W2; i++) {
      idle.push(await openStream(withIdle.url, idleToken));
      following.push(await openStream(withFollowing.url, token));
    }

    // runLoad reads the server's CPU last when the load stops: the catch-up's CPU is counted from there.
    let cpuAtEnd = 0;
    const counted: Contender = { ...withFollowing, cpuSeconds: () => (cpuAtEnd = withFollowing.cpuSeconds()) };
    const catchUpCpu = new Map<RunResult, number>();
    let acknowledged = 0;
    let lateCatchUps = 0;
    const catchUp = async (contender: Contender, run: RunResult) => {
      if (contender !== counted) return;
      const atEnd = cpuAtEnd;
      acknowledged += Object.entries(run.statusCodes).reduce((n, [code, count]) => (code.startsWith('2') ? n + count : n), 0);
      // Streams that fall behind are a figure (followingComplete), not the section's end.
      await eventually(() => following.every((s) => s.events >= acknowledged || s.ended), {
        what: `the following streams to receive ${acknowledged} events`,
        timeoutMs: CATCH_UP_TIMEOUT_MS,
        context: () => `fewest received: ${Math.min(...following.map((s) => s.events))}`,
      }).catch((error: Error) => {
        lateCatchUps++;
        progress(`feed W2: ${error.message}`);
      });
      catchUpCpu.set(run, withFollowing.cpuSeconds() - atEnd);
    };
    const load = { seconds: settings.seconds, connections: settings.connections, token };
    const series = await interleave('feed W2', [none, withIdle, counted], () => workloads.W2, new IdSource(FIRST_WRITE_ID), settings, load, catchUp);
    return {
      series,
      catchUpCpu,
      lateCatchUps,
      idleEnded: idle.filter((s) => s.ended).length,
      idleEvents: idle.reduce((n, s) => n + s.events, 0),
      followingEnded: following.filter((s) => s.ended).length,
      // At least: creates the load generator gave up on at a run's deadline may still have been made.
      followingComplete: following.filter((s) => s.events >= acknowledged).length,
    };
  } finally {
    [...idle, ...following].forEach((s) => s.close());
    for (const server of servers) await server.stop();
  }
}
