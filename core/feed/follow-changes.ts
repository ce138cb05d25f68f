import type { ChangeLog, ChangeReader } from '../ports/change-log.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantsIn } from '../sandbox.js';
import type { PlantChange } from './plant-change.js';

/** Changes read from the log at a time: a follower far behind catches up in steps this size. */
const FEED_BATCH = 256;

/** A sandbox's changes as one follower sees them: where it starts, then every later change, live. */
export interface Following {
  /** The cursor it starts after: a client that receives nothing before it reconnects resumes here. */
  readonly start: string;
  /** The cursor given was unknown, malformed or older than the log: it starts at the newest change instead. */
  readonly reset: boolean;
  /** Every change after `start`, oldest first, waiting for the next while none is there; ends when the signal aborts. */
  readonly changes: AsyncIterable<PlantChange>;
}

/** Follows a sandbox's change log: the use case behind the change feed and `store.changes()`. */
export class FollowChanges {
  constructor(private readonly plants: PlantRepository) {}

  /** Whether the storage keeps a change log (the built-in ones do; a custom repository may not). */
  get available(): boolean {
    return this.plants.changes !== undefined;
  }

  /** `after`: a cursor a client was given (undefined: from now); `sandbox`: whose changes (the default sandbox when omitted). */
  async execute(after: string | undefined, sandbox: string | undefined, signal: AbortSignal): Promise<Following> {
    const log = plantsIn(this.plants, sandbox).changes;
    if (log === undefined) throw new Error('this storage keeps no change log');
    // Watching starts before the first read, so a change recorded between the read and the
    // wait still wakes the follower.
    const waker = new Waker(log, signal);
    try {
      const { reader, reset } = await log.open(after);
      return { start: reader.position, reset, changes: follow(reader, waker, signal) };
    } catch (error) {
      waker.stop();
      throw error;
    }
  }
}

async function* follow(reader: ChangeReader, waker: Waker, signal: AbortSignal): AsyncGenerator<PlantChange> {
  try {
    while (!signal.aborted) {
      waker.woken = false;
      const changes = await reader.next(FEED_BATCH);
      yield* changes;
      // A full batch says more may be there; a wake during the read, that something came.
      if (changes.length === FEED_BATCH || waker.woken) continue;
      await waker.wait();
    }
  } finally {
    waker.stop();
  }
}

/** Turns a log's wake calls and the signal's abort into one promise to wait on. */
class Waker {
  woken = false;
  private resolve: (() => void) | undefined;
  private readonly unwatch: () => void;
  private stopped = false;
  // Stops watching too: a follower whose changes are never iterated (a caller that leaves at
  // feed.reset) would otherwise stay subscribed, and keep a storage polling, until close.
  private readonly onAbort = () => this.stop();

  constructor(log: ChangeLog, private readonly signal: AbortSignal) {
    this.unwatch = log.watch(() => this.wakeUp());
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  wait(): Promise<void> {
    if (this.woken || this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => (this.resolve = resolve));
  }

  stop(): void {
    if (!this.stopped) {
      this.stopped = true;
      this.unwatch();
    }
    this.signal.removeEventListener('abort', this.onAbort);
    this.wakeUp();
  }

  private wakeUp(): void {
    this.woken = true;
    const resolve = this.resolve;
    this.resolve = undefined;
    resolve?.();
  }
}
