import { verdictOf, type DeliveryOutbox, type DeliveryOutcome, type OutboxClaim, type PendingDelivery } from '../../core/index.js';
import type { WebhookSender } from './webhook-sender.js';

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
  /** Delays between attempts, in ms: `retrySchedule.length + 1` attempts in all. */
  readonly retrySchedule: readonly number[];
  /** The longest an attempt takes; a claim lasts this plus room for writing the outcome. */
  readonly timeoutMs: number;
  readonly log: DeliveryLog;
  /** The time now, in ms since the epoch; a test or a simulation passes its own clock. */
  readonly clock?: () => number;
}

/** How often an idle worker looks for due deliveries (retries fall due without a change to wake it). */
const POLL_MS = 500;
/** Plants claimed at a time. */
const BATCH_SIZE = 128;
// Outcome writes under way at once when the outbox does not say: a database swamped by a
// whole batch at once would time out the API's writes.
const DEFAULT_SETTLE_CONCURRENCY = 16;
/** A storage's call timeout when its outbox does not say (the storages' default). */
const DEFAULT_CALL_TIMEOUT_MS = 5_000;

/**
 * Sends what the outbox holds: claims due plants, makes one attempt per claimed delivery
 * (endpoints in parallel), and writes each plant's outcomes back as soon as its attempts
 * are done. What an answer means is the core's rule (verdictOf). Runs until stopped; a
 * storage that is down is tried again after the poll interval.
 */
export class DeliveryWorker {
  private readonly endpoints: ReadonlySet<string>;
  /**
   * How long a claim lasts: the claim's own storage calls, the attempt, then the outcome
   * write (repeated once when a change of the plant came in between). Past it another
   * server may take the plant and send its deliveries again; the late outcome then writes
   * nothing (see DeliveryOutbox.settle), so a lapse costs a repeat, never a delivery.
   */
  readonly leaseMs: number;
  private readonly clock: () => number;
  private readonly settling: Slots;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.endpoints = new Set(options.endpoints);
    // The attempt and five storage calls at their timeout (the claim's, the outcome's and a
    // repeat); a lease that lapses all the same costs a repeated delivery, never a lost one.
    this.leaseMs = options.timeoutMs + 5 * (options.outbox.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS) + 1_000;
    this.clock = options.clock ?? Date.now;
    this.settling = new Slots(options.outbox.settleConcurrency ?? DEFAULT_SETTLE_CONCURRENCY);
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
    const count = await this.options.outbox.retryFailed(this.clock());
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
      if (claimed >= BATCH_SIZE) continue;
      if (!this.woken) await this.idle(POLL_MS);
    }
  }

  /**
   * One round: claims due plants, makes one attempt per claimed delivery (endpoints in
   * parallel), and writes each plant's outcomes as soon as its own attempts end, not after
   * the slowest of the batch. Returns how many plants it claimed.
   */
  async deliverDue(): Promise<number> {
    const { outbox, log } = this.options;
    const claims = await outbox.claim(this.clock(), this.leaseMs, BATCH_SIZE);
    if (claims.length === 0) return 0;
    // Read after the claim, so a mark cleared by a retry before it is not used.
    const gone = new Set(await outbox.goneEndpoints());
    await Promise.all(
      claims.map(async (claim) => {
        const outcomes = await Promise.all(claim.deliveries.map((delivery) => this.attempt(claim, delivery, gone)));
        // Each on its own: one failed write must not send the rest of the batch again.
        await this.settling.run(() =>
          outbox.settle(claim, outcomes).catch((error: unknown) => {
            log.warn({ err: error, plantId: claim.plantId }, 'a webhook outcome could not be written; the delivery will be repeated when its claim lapses');
          }),
        );
      }),
    );
    return claims.length;
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

  private async attempt(claim: OutboxClaim, delivery: PendingDelivery, gone: Set<string>): Promise<DeliveryOutcome> {
    const { log, retrySchedule } = this.options;
    const attempt = delivery.attempts + 1;
    const fields = { webhookId: delivery.id, event: delivery.event.type, plantId: claim.plantId, endpoint: hostOf(delivery.endpoint), attempt };
    if (!this.endpoints.has(delivery.endpoint)) {
      log.error(fields, 'webhook delivery failed: its endpoint is no longer configured');
      return { id: delivery.id, result: 'failed', error: 'endpoint no longer configured' };
    }
    if (gone.has(delivery.endpoint)) {
      return { id: delivery.id, result: 'failed', error: 'endpoint disabled: it answered 410 Gone' };
    }
    const answer = await this.options.sender.send(delivery);
    const { outcome, endpointGone } = verdictOf(delivery, answer, retrySchedule, this.clock());
    const logged = { ...fields, status: answer.status, durationMs: answer.durationMs, ...(answer.error !== undefined && { error: answer.error }) };
    if (endpointGone) {
      gone.add(delivery.endpoint);
      // Marked before the outcome is written: every server stops sending to it.
      await this.options.outbox.markGone(delivery.endpoint, this.clock()).catch((error: unknown) => {
        log.warn({ err: error, endpoint: fields.endpoint }, 'could not record that a webhook endpoint answered 410 Gone; its next deliveries will be tried');
      });
      log.error(logged, 'webhook endpoint answered 410 Gone: no more deliveries to it until failed deliveries are retried');
    } else if (outcome.result === 'delivered') log.info(logged, 'webhook delivered');
    else if (outcome.result === 'failed') log.error(logged, `webhook delivery failed after ${attempt} attempts`);
    else log.warn({ ...logged, retryInMs: retrySchedule[delivery.attempts] }, 'webhook attempt failed; will retry');
    return outcome;
  }
}

/** Runs at most `size` tasks at a time, the rest in the order they came. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'invalid URL';
  }
}
