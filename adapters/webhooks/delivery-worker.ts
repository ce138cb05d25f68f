import { DeliverDue, type Clock, type DeliveryMetrics, type DeliveryOutbox, type Log, type WebhookTransport } from '../../core/index.js';

export interface DeliveryWorkerOptions {
  readonly outbox: DeliveryOutbox;
  /** The way to the endpoints (WebhookSender: signed HTTP); closed when the worker stops. */
  readonly sender: WebhookTransport & { close(): void };
  /** The configured endpoints; a delivery to any other (configuration changed) fails at once. */
  readonly endpoints: readonly string[];
  /** Delays between attempts, in ms: `retrySchedule.length + 1` attempts in all. */
  readonly retrySchedule: readonly number[];
  /** How long a claim holds its plants (see leaseMsFor); the composition knows the storage. */
  readonly leaseMs: number;
  /** Outcome writes under way at once; the composition knows what the storage takes well. */
  readonly settleConcurrency: number;
  readonly log: Log;
  /** The machine's (systemClock), or a test's or a simulation's own. */
  readonly clock: Clock;
  /** Plants claimed per round; default in WORKER_DEFAULTS. */
  readonly batchSize?: number;
  /** How often an idle worker looks for due deliveries (retries fall due without a change to wake it); default in WORKER_DEFAULTS. */
  readonly pollMs?: number;
  /** Hears how every attempt ended (metrics); default: nobody. */
  readonly metrics?: DeliveryMetrics | undefined;
}

export const WORKER_DEFAULTS = { batchSize: 128, pollMs: 500 } as const;

/**
 * Runs the core's delivery round (DeliverDue) on a timer: at once after a change (wake),
 * again at once after a full batch, else every `pollMs`. Runs until stopped; a storage that
 * is down is tried again after the poll interval.
 */
export class DeliveryWorker {
  readonly leaseMs: number;
  private readonly clock: Clock;
  private readonly round: DeliverDue;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.leaseMs = options.leaseMs;
    this.clock = options.clock;
    this.batchSize = options.batchSize ?? WORKER_DEFAULTS.batchSize;
    this.pollMs = options.pollMs ?? WORKER_DEFAULTS.pollMs;
    const { outbox, sender, log, endpoints, retrySchedule, leaseMs, settleConcurrency, metrics } = options;
    this.round = new DeliverDue({ outbox, transport: sender, clock: this.clock, log, endpoints, retrySchedule, leaseMs, batchSize: this.batchSize, settleConcurrency, metrics });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Cuts an idle wait short: a change was just recorded. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Makes every failed delivery pending again and sends to endpoints that had answered 410 again; returns how many. */
  async retryFailed(): Promise<number> {
    const count = await this.options.outbox.retryFailed(this.clock.now());
    this.wake();
    return count;
  }

  /** Stops after the claims under way are settled. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    this.options.sender.close();
  }

  /** One round of the core's delivery (claim, attempt, settle); returns how many plants it claimed. */
  deliverDue(): Promise<number> {
    return this.round.execute();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let claimed = 0;
      try {
        claimed = await this.deliverDue();
      } catch (error) {
        this.options.log.warn({ err: error }, 'webhook deliveries could not be read or written; trying again');
      }
      // A full batch: more is waiting, go on. Otherwise wait for a change or the poll.
      if (claimed >= this.batchSize) continue;
      if (!this.woken) await this.idle(this.pollMs);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeUp?.(), ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }
}
