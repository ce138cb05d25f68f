/**
 * Streams that never read (part of the feed section): one server on memory, streams that
 * ask for the feed and then never read it, while 100,000 creates are written through the
 * API; beside them one stream that reads and a client listing plants. The server's RSS is
 * sampled throughout; the same run without the stalled streams tells what they cost.
 */
import autocannon from 'autocannon';
import { samplesOf, valueOf } from '../support/exposition.js';
import { residentBytes } from '../support/never-reading-clients.js';
import { eventually } from '../support/eventually.js';
import { megabytes } from './format.js';
import { startPlantStore, type Contender, type Memory } from './contenders.js';
import { openStream, stalledStream, type FeedStream, type StalledStream } from './feed-streams.js';
import { authorized, IdSource, LIST_LIMIT, workloads } from './load.js';
import { progress, SEEDED_PLANTS } from './sections.js';
import { FIRST_WRITE_ID } from './seed-plants.js';
import { latencyOf, type Latency } from './stats.js';

export const STALLED = {
  streams: 50,
  changes: 100_000,
  /** Connections writing the changes. */
  writers: 50,
  /** Pause between one list request's answer and the next request. */
  listPauseMs: 50,
  rssSampleMs: 100,
  /** A list request not answered by then counts as failed: a stuck server cannot pass target 15. */
  listTimeoutMs: 2000,
  /** How long the reading stream may take to receive every create once the writes have ended. */
  readerTimeoutMs: 60_000,
  /** The server waits 10 s for a stalled stream to drain before cutting it (event-stream.ts): this is beyond. */
  endTimeoutMs: 30_000,
} as const;

export interface StalledRun {
  /** Stalled streams opened (0: the same run without them). */
  readonly stalled: number;
  /** Creates answered 2xx, and the rest (non-2xx and errors). */
  readonly written: number;
  readonly writeFailures: number;
  readonly writeSeconds: number;
  /** Server RSS in bytes just before the writes began (streams open), and the highest sampled (every 100 ms) until the later of the reader catching up and the stalled streams ending (or their time limits). */
  readonly rssBefore: number;
  readonly rssPeak: number;
  /** After a forced GC once the stalled streams were ended: what the server still holds (the 100,000 plants and their changes, retained). */
  readonly after: Memory | undefined;
  /** Streams the server still had open once it was done (its plant_store_feed_streams gauge): the reading one alone, if every stalled one was ended. */
  readonly openAfter: number;
  /** Seconds from the first write until the server had ended every stalled stream (NaN: it had not by STALLED.endTimeoutMs after the writes). */
  readonly endedAtSeconds: number;
  /** Stalled streams that, read at last, ended: the server had ended them. */
  readonly endedByServer: number;
  /** Plant events the reading stream received (fewer than `written`: it had not caught up by STALLED.readerTimeoutMs), and whether it was still open at the end. */
  readonly readerEvents: number;
  readonly readerOpen: boolean;
  /** The lister's `GET /plants?limit=100` while the writes ran, one at a time; failed counts those not answered 2xx within STALLED.listTimeoutMs. */
  readonly lists: Latency & { readonly count: number; readonly failed: number };
}

export async function stalledRun(token: string, stalled: number): Promise<StalledRun> {
  const label = `feed, ${stalled} stalled streams`;
  progress(`${label}: starting this server (memory, metrics on for its open-streams gauge)`);
  const server = await startPlantStore({ name: label, plants: SEEDED_PLANTS, token, env: { PLANT_STORE_METRICS: 'on' } });
  let reader: FeedStream | undefined;
  const stalledStreams: StalledStream[] = [];
  // Stopped in `finally` too: a sample of a stopped server would throw in its timer.
  let sampler: NodeJS.Timeout | undefined;
  let lister: ReturnType<typeof startLister> | undefined;
  try {
    let readerEvents = 0;
    reader = await openStream(server.url, token, { onEvent: () => readerEvents++ });
    for (let i = 0; i < stalled; i++) stalledStreams.push(await stalledStream(server.url, token));
    await eventually(async () => (await openStreams(server)) === stalled + 1, { what: `${stalled + 1} open streams on the server` });

    const rssBefore = residentBytes(server.pid);
    let rssPeak = rssBefore;
    sampler = setInterval(() => (rssPeak = Math.max(rssPeak, residentBytes(server.pid))), STALLED.rssSampleMs);
    lister = startLister(server, token);
    const writing = performance.now();
    let wroteAt: number | undefined;
    const ended = watchEnds(server, writing, () => wroteAt);
    // Handled now, awaited later: if a /metrics poll fails, or the writes throw first, the
    // run fails through the section's catch instead of as an unhandled rejection.
    ended.catch(() => {});
    progress(`${label}: writing ${STALLED.changes.toLocaleString('en-US')} creates over ${STALLED.writers} connections; RSS ${megabytes(rssBefore)} before`);
    const writes = await autocannon({
      url: server.url,
      connections: STALLED.writers,
      amount: STALLED.changes,
      ...authorized(server, token, workloads.W2, new IdSource(FIRST_WRITE_ID)),
    });
    wroteAt = performance.now();
    const writeSeconds = (wroteAt - writing) / 1000;
    const written = writes['2xx'];
    // A reader that falls behind is a figure of the run (target 15 fails on it), not the section's end.
    await eventually(() => readerEvents >= written, { what: `the reading stream to receive ${written} events`, timeoutMs: STALLED.readerTimeoutMs, context: () => `${readerEvents} received` }).catch(
      (error: Error) => progress(`${label}: ${error.message}`),
    );
    // Sampling goes on until the server has ended the stalled streams too: it holds their buffers until then.
    const { openAfter, endedAtSeconds } = await ended;
    clearInterval(sampler);
    const lists = await lister.stop();
    const after = await server.memory();
    const endedByServer = (await Promise.all(stalledStreams.map((s) => s.drain(5000)))).filter(Boolean).length;
    const result: StalledRun = {
      stalled,
      written,
      writeFailures: writes.non2xx + writes.errors,
      writeSeconds,
      rssBefore,
      rssPeak,
      after,
      openAfter,
      endedAtSeconds,
      endedByServer,
      readerEvents,
      readerOpen: !reader.ended,
      lists,
    };
    progress(
      `${label}: ${written} creates in ${writeSeconds.toFixed(1)} s; RSS ${megabytes(rssBefore)} before, peak ${megabytes(rssPeak)}, ${megabytes(after?.rss ?? Number.NaN)} after (forced GC); ` +
        `${endedByServer} of ${stalled} stalled streams ended by the server (${openAfter} stream open after, all ended ${endedAtSeconds.toFixed(1)} s after the writes began); ` +
        `the reading stream got ${readerEvents}; ${lists.count} lists, p50 ${lists.p50Ms.toFixed(1)} ms, p99 ${lists.p99Ms.toFixed(1)} ms, max ${lists.maxMs.toFixed(0)} ms, ${lists.failed} failed`,
    );
    return result;
  } finally {
    clearInterval(sampler);
    await lister?.stop();
    reader?.close();
    stalledStreams.forEach((s) => s.destroy());
    await server.stop();
  }
}

/** The server's plant_store_feed_streams gauge: streams it has open now. */
async function openStreams(server: Contender): Promise<number> {
  const open = valueOf(samplesOf(await (await fetch(`${server.url}/metrics`)).text()), 'plant_store_feed_streams');
  if (open === undefined) throw new Error('feed: /metrics has no plant_store_feed_streams');
  return open;
}

/**
 * Polls the server's gauge from `since` until no more than the reading stream is open, or
 * STALLED.endTimeoutMs after the writes ended (`wroteAt`): when that was, and what was left open.
 */
async function watchEnds(server: Contender, since: number, wroteAt: () => number | undefined): Promise<{ openAfter: number; endedAtSeconds: number }> {
  for (;;) {
    const open = await openStreams(server);
    const now = performance.now();
    if (open <= 1) return { openAfter: open, endedAtSeconds: (now - since) / 1000 };
    const wrote = wroteAt();
    if (wrote !== undefined && now - wrote > STALLED.endTimeoutMs) return { openAfter: open, endedAtSeconds: Number.NaN };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Lists plants one request at a time until stopped: another client of the same server. */
function startLister(server: Contender, token: string) {
  const times: number[] = [];
  let failed = 0;
  let stopping = false;
  const running = (async () => {
    while (!stopping) {
      const started = performance.now();
      let ok: boolean;
      try {
        // Timed out (answer or body): failed, so that a server stuck under the writes shows.
        const response = await fetch(`${server.url}${server.listPath(LIST_LIMIT)}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(STALLED.listTimeoutMs) });
        await response.arrayBuffer();
        ok = response.ok;
      } catch {
        ok = false;
      }
      if (ok) times.push(performance.now() - started);
      else failed++;
      await new Promise((resolve) => setTimeout(resolve, STALLED.listPauseMs));
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await running;
      return { count: times.length + failed, failed, ...latencyOf(times) };
    },
  };
}
