import type { ImportCounts } from './plant-import.js';

/** Inputs smaller than this finish before a bar would be worth drawing. */
export const PROGRESS_MIN_BYTES = 10 * 1024 * 1024;
const WIDTH = 30;
const EVERY_MS = 200;

/**
 * A one-line progress bar on a terminal: bytes read of the file's size, and the counts.
 * Redrawn at most every 200 ms with a carriage return; `finish` clears it.
 */
export class ImportProgress {
  private lastDraw = 0;

  constructor(
    private readonly terminal: NodeJS.WriteStream,
    private readonly totalBytes: number,
    private readonly bytesRead: () => number,
  ) {}

  /** A bar only when it helps: a terminal to draw on, and a large input of known size. */
  static wanted(terminal: NodeJS.WriteStream, totalBytes: number | undefined): totalBytes is number {
    return terminal.isTTY === true && totalBytes !== undefined && totalBytes >= PROGRESS_MIN_BYTES;
  }

  update(counts: Readonly<ImportCounts>): void {
    const now = Date.now();
    if (now - this.lastDraw < EVERY_MS) return;
    this.lastDraw = now;
    const share = Math.min(1, this.bytesRead() / this.totalBytes);
    const filled = Math.round(share * WIDTH);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
    const seen = counts.created + counts.skipped + counts.invalid;
    this.terminal.write(`\r${bar} ${seen.toLocaleString('en-US')} plants read`);
  }

  finish(): void {
    if (this.lastDraw !== 0) this.terminal.write('\r\x1b[2K');
  }
}
