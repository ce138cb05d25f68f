import type { ServerResponse } from 'node:http';
import type { Following, PlantChange } from '../../../core/index.js';

/** How a stream is paced and bounded; FEED_STREAM_DEFAULTS unless a test says otherwise. */
export interface EventStreamLimits {
  /** A comment line this often keeps proxies from closing an idle stream. */
  readonly keepAliveMs: number;
  /** Written but not yet taken by the client, in bytes: past it the server waits for the client… */
  readonly bufferBytes: number;
  /** …this long at most, then ends the stream (the client resumes from its last id). */
  readonly drainTimeoutMs: number;
  /** The `retry:` a client waits before reconnecting. */
  readonly retryMs: number;
}

/**
 * Characters a stream writes before it lets the event loop go round: other streams and
 * requests wait at most this much of each stream's writing (500 streams catching up at
 * once: rounds of 40–70 ms at 16 KiB, 160–190 ms at 64 KiB).
 */
const TURN_CHARS = 16 * 1024;

const FEED_STREAM_DEFAULTS: EventStreamLimits = { keepAliveMs: 15_000, bufferBytes: 64 * 1024, drainTimeoutMs: 10_000, retryMs: 2_000 };

/**
 * Writes a change feed as Server-Sent Events (WHATWG HTML, "Server-sent events") until the
 * client goes, the server closes (`closing`), or the client stops taking what is written.
 * The first message is `retry:` and the starting cursor as a bare `id:` (it sets the
 * client's last event id without an event, so a client that reconnects before any change
 * still resumes from there), or `feed.reset` when the cursor asked for was not usable.
 * Changes are read from the log only as fast as the client takes them: a client that stops
 * reading holds at most `bufferBytes` and a turn's TURN_CHARS (plus one batch) of this
 * process's memory, then `drainTimeoutMs`, then its stream ends.
 */
export async function writeEventStream(res: ServerResponse, following: Following, stop: AbortController, limits: EventStreamLimits = FEED_STREAM_DEFAULTS): Promise<void> {
  // A client that stopped reading would never take the rest, nor would one whose log read
  // failed get a clean end: cut, not ended (the client resumes from its last id either way).
  let cut = false;
  const onClose = () => stop.abort();
  res.once('close', onClose);
  const keepAlive = setInterval(() => {
    if (!res.writableEnded && !res.destroyed) res.write(': keep-alive\n\n');
  }, limits.keepAliveMs);
  try {
    const opening = following.reset ? `id: ${following.start}\nevent: feed.reset\ndata: {}\n\n` : `id: ${following.start}\n\n`;
    res.write(`retry: ${limits.retryMs}\n${opening}`);
    // The events of one turn of the event loop go out as one write: a client catching up on
    // thousands costs a few socket writes, not one (and its bookkeeping) per event.
    let corked = false;
    const uncork = () => {
      if (!corked) return;
      corked = false;
      res.uncork();
    };
    // Characters written since the stream last yielded here (waiting for changes does not
    // count: a stream following small changes yields once every TURN_CHARS of them). Past
    // TURN_CHARS it waits for the next turn, and first for the client to take them when
    // more than bufferBytes are still not taken. A client catching up from far behind (or
    // not reading, while the kernel's socket buffers still take megabytes) would otherwise
    // write its whole backlog in one go: 'drain' after a write the kernel took whole comes
    // before any I/O, and a thousand such streams held every other request for 13 s.
    let turnChars = 0;
    for await (const change of following.changes) {
      if (stop.signal.aborted || res.destroyed) break;
      if (!corked) {
        corked = true;
        res.cork();
        setImmediate(uncork);
      }
      const text = message(change);
      res.write(text);
      turnChars += text.length;
      if (turnChars >= TURN_CHARS) {
        turnChars = 0;
        uncork();
        if (res.writableLength > limits.bufferBytes) {
          if (!(await drained(res, limits.drainTimeoutMs, stop.signal)) && !stop.signal.aborted) cut = true;
          if (cut) break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    uncork();
  } catch {
    cut = true;
  } finally {
    stop.abort();
    clearInterval(keepAlive);
    res.off('close', onClose);
    if (cut) res.destroy();
    else if (!res.writableEnded) res.end();
  }
}

/** One event: `data` is one JSON line (JSON.stringify writes no line break). */
function message(change: PlantChange): string {
  return `id: ${change.cursor}\nevent: ${change.event.type}\ndata: ${JSON.stringify(change.event.data)}\n\n`;
}

/** Whether the client took what was written within `timeoutMs` (false also when the stream is stopping). */
function drained(res: ServerResponse, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    res.once('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
