/** How many change streams may be open at once: in this process, and for one token. */
export interface StreamLimits {
  readonly total: number;
  readonly perToken: number;
}

/**
 * Counts the open change streams, in all and by token holder, so that their number is bounded
 * as each one's buffer is (event-stream.ts): memory and the work of catching up stay bounded
 * whatever clients open.
 */
export class OpenStreams {
  private total = 0;
  private readonly byHolder = new Map<string, number>();

  constructor(private readonly limits: StreamLimits) {}

  /** Opens one for `holder`; why not, when a limit is reached. */
  open(holder: string): string | undefined {
    const held = this.byHolder.get(holder) ?? 0;
    if (held >= this.limits.perToken) return `${held} change streams are open for this token, the most it may have`;
    if (this.total >= this.limits.total) return `${this.total} change streams are open on this server, the most it keeps`;
    this.byHolder.set(holder, held + 1);
    this.total++;
    return undefined;
  }

  close(holder: string): void {
    const held = this.byHolder.get(holder) ?? 0;
    if (held <= 1) this.byHolder.delete(holder);
    else this.byHolder.set(holder, held - 1);
    this.total--;
  }
}
