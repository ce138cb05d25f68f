import type { DeliveryOutbox, DeliveryOutcome, OutboxClaim, PendingDelivery } from '../../core/index.js';
import type { AttemptResult, WebhookSender } from './webhook-sender.js';

/** The slice of pino the worker logs with. */
export interface DeliveryLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface DeliveryWorkerOptions {
  readonly outbox: DeliveryOutbox;
  readonly sender: Pick<WebhookSender, 'send' | 'close'>;
  /** The configured endpoints; a delivery to any other (configuration changed) fails at once. */
  readonly endpoints: readonly string[];
  /** Delays between attempts, in ms: `schedule.length + 1` attempts in all. */
  readonly retrySchedule: readonly number[];
  /** The longest an attempt takes; a claim lasts this plus a margin. */
  readonly timeoutMs: number;
  readonly log: DeliveryLog;
  /** How often an idle worker looks for due deliveries; default 500 ms. */
  readonly pollMs?: number;
  /** Plants claimed at a time; default 128. */
  /** After a change, how long the worker gathers more before claiming; default 0 (measured: no gain in throughput, ten times the lag). */
  readonly gatherMs?: number;
  readonly batchSize?: number;
  readonly clock?: () => number;
}

// Added to the attempt timeout: room for writing the outcome (storage calls give up after 5 s by default).
const LEASE_MARGIN_MS = 6_000;
const SETTLE_CONCURRENCY = 16;

/**
 * Sends what the outbox holds: claims due plants, makes one attempt per claimed delivery
 * (endpoints in parallel), and writes the outcomes back. Runs until stopped; a storage that
 * is down is retried after the poll interval.
 */
export class DeliveryWorker {
  private readonly disabled = new Set<string>();
  private readonly endpoints: ReadonlySet<string>;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private readonly clock: () => number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.endpoints = new Set(options.endpoints);
    this.clock = options.clock ?? Date.now;
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

  /** Stops after the claims under way are settled. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    this.options.sender.close();
  }

  private async run(): Promise<void> {
    const { outbox, log, batchSize = 128, pollMs = 500, gatherMs = 0, timeoutMs } = this.options;
    while (this.running) {
      this.woken = false;
      let claims: OutboxClaim[] = [];
      try {
        claims = await outbox.claim(this.clock(), timeoutMs + LEASE_MARGIN_MS, batchSize);
        const outcomes = await Promise.all(claims.map((claim) => Promise.all(claim.deliveries.map((delivery) => this.attempt(claim, delivery)))));
        // A few at a time (the disk storage commits concurrent writes as one transaction; a
        // database swamped by a whole batch at once would time out the API's own writes),
        // each on its own: one failed write must not send the rest of the batch again.
        for (let start = 0; start < claims.length; start += SETTLE_CONCURRENCY) {
          await Promise.all(
            claims.slice(start, start + SETTLE_CONCURRENCY).map((claim, i) =>
              outbox.settle(claim, outcomes[start + i]!).catch((error: unknown) => {
                log.warn({ err: error, plantId: claim.plantId }, 'a webhook outcome could not be written; the delivery will be repeated when its claim lapses');
              }),
            ),
          );
        }
      } catch (error) {
        log.warn({ err: error }, 'webhook deliveries could not be read or written; trying again');
        claims = [];
      }
      // A full batch: more is waiting, go on. Otherwise wait for a change (or the poll), then
      // a little longer, so the next batch gathers the changes of those milliseconds: fewer,
      // larger claims and outcome writes for the storage to commit next to the API's writes.
      if (claims.length >= batchSize) continue;
      if (!this.woken) await this.idle(pollMs);
      if (this.running && gatherMs > 0) await this.idle(gatherMs, false);
    }
  }

  /** Waits `ms`; a wake cuts it short when `wakeable` (stop always does). */
  private idle(ms: number, wakeable = true): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        if (wakeable || !this.running) {
          this.wakeUp = undefined;
          done();
        }
      };
    });
  }

  private async attempt(claim: OutboxClaim, delivery: PendingDelivery): Promise<DeliveryOutcome> {
    const { log, retrySchedule } = this.options;
    const attempt = delivery.attempts + 1;
    const fields = { webhookId: delivery.id, event: delivery.event.type, plantId: claim.plantId, endpoint: hostOf(delivery.endpoint), attempt };
    if (!this.endpoints.has(delivery.endpoint)) {
      log.error(fields, 'webhook delivery failed: its endpoint is no longer configured');
      return { id: delivery.id, result: 'failed', error: 'endpoint no longer configured' };
    }
    if (this.disabled.has(delivery.endpoint)) {
      return { id: delivery.id, result: 'failed', error: 'endpoint disabled: it answered 410 Gone' };
    }
    const result: AttemptResult = await this.options.sender.send(delivery);
    const logged = { ...fields, status: result.status, durationMs: result.durationMs, ...(result.error !== undefined && { error: result.error }) };
    const outcome = { id: delivery.id, ...(result.status !== undefined && { status: result.status }), ...(result.error !== undefined && { error: result.error }) };
    if (result.status !== undefined && result.status >= 200 && result.status < 300 && result.error === undefined) {
      log.info(logged, 'webhook delivered');
      return { ...outcome, result: 'delivered' };
    }
    if (result.status === 410) {
      this.disabled.add(delivery.endpoint);
      log.error(logged, 'webhook endpoint answered 410 Gone: no more deliveries to it until restart');
      return { ...outcome, result: 'failed', error: 'endpoint answered 410 Gone' };
    }
    const delay = retrySchedule[delivery.attempts];
    if (delay === undefined) {
      log.error(logged, `webhook delivery failed after ${attempt} attempts`);
      return { ...outcome, result: 'failed' };
    }
    log.warn({ ...logged, retryInMs: delay }, 'webhook attempt failed; will retry');
    return { ...outcome, result: 'retry', dueAt: this.clock() + delay };
  }
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'invalid URL';
  }
}
