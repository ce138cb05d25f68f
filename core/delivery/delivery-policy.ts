import type { DeliveryOutcome, PendingDelivery } from '../outbox/pending-delivery.js';
import type { AttemptAnswer } from '../ports/webhook-transport.js';

/** Delays between attempts, in ms (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h): about a day in all, like the best-known providers'. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);

/** An outcome, and whether the endpoint said it is gone for good (410): no more deliveries to it. */
export interface AttemptVerdict {
  readonly outcome: DeliveryOutcome;
  readonly endpointGone: boolean;
}

/**
 * The delivery rules of the contract: a 2xx is success, `410 Gone` ends deliveries to the
 * endpoint, anything else (another status, a timeout, a refused connection, a redirect)
 * is tried again after the schedule's next delay, and failed once the schedule is used up.
 * `schedule` holds the delays between attempts: `schedule.length + 1` attempts in all.
 */
export function verdictOf(delivery: PendingDelivery, answer: AttemptAnswer, schedule: readonly number[], now: number): AttemptVerdict {
  const base = {
    id: delivery.id,
    ...(answer.status !== undefined && { status: answer.status }),
    ...(answer.error !== undefined && { error: answer.error }),
  };
  if (answer.error === undefined && answer.status !== undefined && answer.status >= 200 && answer.status < 300) {
    return { outcome: { ...base, result: 'delivered' }, endpointGone: false };
  }
  if (answer.status === 410) return { outcome: { ...base, result: 'failed', error: 'endpoint answered 410 Gone' }, endpointGone: true };
  const delay = schedule[delivery.attempts];
  if (delay === undefined) return { outcome: { ...base, result: 'failed' }, endpointGone: false };
  return { outcome: { ...base, result: 'retry', dueAt: now + delay }, endpointGone: false };
}
