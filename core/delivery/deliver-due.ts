import type { DeliveryOutcome, OutboxClaim, PendingDelivery } from '../outbox/pending-delivery.js';
import type { Clock } from '../ports/clock.js';
import type { AttemptOutcome, DeliveryMetrics } from '../ports/delivery-metrics.js';
import type { DeliveryOutbox } from '../ports/delivery-outbox.js';
import type { Log } from '../ports/log.js';
import type { WebhookTransport } from '../ports/webhook-transport.js';
import { verdictOf } from './delivery-policy.js';
import { Slots } from './slots.js';

export interface DeliverDueOptions {
  readonly outbox: DeliveryOutbox;
  readonly transport: WebhookTransport;
  readonly clock: Clock;
  readonly log: Log;
  /** The configured endpoints; a delivery to any other (configuration changed) fails at once. */
  readonly endpoints: readonly string[];
  /** Delays between attempts, in ms: `retrySchedule.length + 1` attempts in all. */
  readonly retrySchedule: readonly number[];
  /** How long a claim holds its plants (see leaseMsFor). */
  readonly leaseMs: number;
  /** Plants claimed per round. */
  readonly batchSize: number;
  /** Outcome writes under way at once: a storage swamped by a whole batch at once would time out the API's writes. */
  readonly settleConcurrency: number;
  /** Hears how every attempt ended; default: nobody. */
  readonly metrics?: DeliveryMetrics | undefined;
}

const NO_METRICS: DeliveryMetrics = { attemptEnded: () => {} };

/**
 * How long a claim must last: the claim's own storage calls, the attempt, then the outcome
 * write (repeated once when a change of the plant came in between), i.e. the attempt and
 * five storage calls at their timeouts, plus a second. Past it another server may take the
 * plant and send its deliveries again; the late outcome then writes nothing (see
 * DeliveryOutbox.settle), so a lapse costs a repeat, never a delivery.
 */
export function leaseMsFor(attemptTimeoutMs: number, storageCallTimeoutMs: number): number {
  return attemptTimeoutMs + 5 * storageCallTimeoutMs + 1_000;
}

/**
 * Delivers what is due, one round: claims due plants, makes one attempt per claimed
 * delivery (endpoints in parallel), and writes each plant's outcomes as soon as its own
 * attempts end, not after the slowest of the batch. What an answer means is the core's
 * rule (verdictOf); an endpoint that answered 410 is marked gone for every server.
 */
export class DeliverDue {
  private readonly endpoints: ReadonlySet<string>;
  private readonly settling: Slots;
  private readonly metrics: DeliveryMetrics;

  constructor(private readonly options: DeliverDueOptions) {
    this.endpoints = new Set(options.endpoints);
    this.settling = new Slots(options.settleConcurrency);
    this.metrics = options.metrics ?? NO_METRICS;
  }

  /** Runs one round; answers how many plants it claimed (a full batch: more may be waiting). */
  async execute(): Promise<number> {
    const { outbox, clock, log, leaseMs, batchSize } = this.options;
    const claims = await outbox.claim(clock.now(), leaseMs, batchSize);
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

  private async attempt(claim: OutboxClaim, delivery: PendingDelivery, gone: Set<string>): Promise<DeliveryOutcome> {
    const { outbox, transport, clock, log, retrySchedule } = this.options;
    const attempt = delivery.attempts + 1;
    const fields = {
      webhookId: delivery.id,
      event: delivery.event.type,
      plantId: claim.plantId,
      endpoint: hostOf(delivery.endpoint),
      attempt,
      ...(delivery.traceId !== undefined && { traceId: delivery.traceId }),
    };
    const ended = (counted: AttemptOutcome) => this.metrics.attemptEnded(counted, clock.now() - delivery.createdAt);
    if (!this.endpoints.has(delivery.endpoint)) {
      log.error(fields, 'webhook delivery failed: its endpoint is no longer configured');
      ended('failed');
      return { id: delivery.id, result: 'failed', error: 'endpoint no longer configured' };
    }
    if (gone.has(delivery.endpoint)) {
      ended('gone');
      return { id: delivery.id, result: 'failed', error: 'endpoint disabled: it answered 410 Gone' };
    }
    const answer = await transport.send(delivery);
    const { outcome, endpointGone } = verdictOf(delivery, answer, retrySchedule, clock.now());
    const logged = { ...fields, status: answer.status, durationMs: answer.durationMs, ...(answer.error !== undefined && { error: answer.error }) };
    if (endpointGone) {
      gone.add(delivery.endpoint);
      // Marked before the outcome is written: every server stops sending to it.
      await outbox.markGone(delivery.endpoint, clock.now()).catch((error: unknown) => {
        log.warn({ err: error, endpoint: fields.endpoint }, 'could not record that a webhook endpoint answered 410 Gone; its next deliveries will be tried');
      });
      log.error(logged, 'webhook endpoint answered 410 Gone: no more deliveries to it until failed deliveries are retried');
    } else if (outcome.result === 'delivered') log.info(logged, 'webhook delivered');
    else if (outcome.result === 'failed') log.error(logged, `webhook delivery failed after ${attempt} attempts`);
    else log.warn({ ...logged, retryInMs: retrySchedule[delivery.attempts] }, 'webhook attempt failed; will retry');
    ended(endpointGone ? 'gone' : outcome.result === 'retry' ? 'retried' : outcome.result);
    return outcome;
  }
}

/** The endpoint as logged: its host only (a path or query may hold a token). */
function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'invalid URL';
  }
}
