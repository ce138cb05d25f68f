/**
 * The followers waiting for a change log's changes, by sandbox: what a log that wakes them
 * (disk, or MongoDB's poll) keeps. Each watch is its own entry, so one callback watching
 * twice is unwatched once each; `onNone` is told when the last watcher leaves (a poll stops).
 */
export class SandboxWatchers {
  private readonly bySandbox = new Map<string, Set<() => void>>();

  constructor(private readonly onNone: () => void = () => {}) {}

  /** Calls `wake` after each change of `sandbox` (or whenever a change may have come); returns the unwatch. */
  watch(sandbox: string, wake: () => void): () => void {
    let wakes = this.bySandbox.get(sandbox);
    if (wakes === undefined) this.bySandbox.set(sandbox, (wakes = new Set()));
    const entry = () => wake();
    wakes.add(entry);
    return () => {
      wakes.delete(entry);
      if (wakes.size === 0 && this.bySandbox.get(sandbox) === wakes) this.bySandbox.delete(sandbox);
      if (this.bySandbox.size === 0) this.onNone();
    };
  }

  /** Wakes the followers of these sandboxes. */
  wake(sandboxes: Iterable<string>): void {
    for (const sandbox of sandboxes) for (const wake of this.bySandbox.get(sandbox) ?? []) wake();
  }

  /** The sandboxes someone follows. */
  sandboxes(): string[] {
    return [...this.bySandbox.keys()];
  }

  get size(): number {
    return this.bySandbox.size;
  }

  /** Forgets every watcher (the log is closing); an unwatch after it only tells `onNone` again. */
  clear(): void {
    this.bySandbox.clear();
  }
}
