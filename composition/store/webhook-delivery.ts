import { DEFAULT_RETRY_SCHEDULE_MS, leaseMsFor, Subscriptions, type DeliveryOutbox, type DeliveryState } from '../../core/index.js';
import { DeliveryWorker, type DeliveryLog } from '../../adapters/webhooks/delivery-worker.js';
import { WebhookSender } from '../../adapters/webhooks/webhook-sender.js';
import { ConfigError } from '../config/config-error.js';
import { packageVersion } from '../package-version.js';
import { DEFAULT_OUTBOX_LIMITS, type OpenStorage } from './storage.js';
import { DEFAULT_WEBHOOK_EVENTS, DEFAULT_WEBHOOK_TIMEOUT_MS, webhookOptionsProblem, type WebhookOptions } from './webhook-options.js';

/** Webhook delivery as wired for one store: who gets what, and the worker sending it. */
export interface WebhookDelivery {
  readonly subscriptions: Subscriptions;
  readonly worker: DeliveryWorker;
  readonly outbox: DeliveryOutbox;
}

/** The delivery state plus how old the oldest pending delivery is. */
export interface WebhookDeliveryState extends DeliveryState {
  /** Age of the oldest pending delivery in ms; absent when nothing is pending. */
  readonly oldestPendingAgeMs?: number;
}

/** Logs errors on standard error and nothing else: the default for embedded stores. */
export const consoleDeliveryLog: DeliveryLog = {
  info: () => {},
  warn: () => {},
  error: (fields, message) => console.error(`plant-store: ${message}`, fields),
};

/** Checks the options and wires the worker (not started) to the storage's outbox; ConfigError when they cannot work. */
export function webhookDeliveryFor(options: WebhookOptions, storage: Pick<OpenStorage, 'outbox' | 'outboxLimits'>, log: DeliveryLog): WebhookDelivery {
  const problem = webhookOptionsProblem(options);
  if (problem !== undefined) throw new ConfigError(problem);
  const { outbox, outboxLimits = DEFAULT_OUTBOX_LIMITS } = storage;
  if (outbox === undefined) throw new ConfigError('webhooks need a storage with an outbox (memory, disk or mongodb; a custom repository must provide `outbox`)');
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const sender = new WebhookSender({ secret: options.secret, timeoutMs, allowPrivate: options.allowPrivate ?? false, userAgent: `plant-store/${packageVersion}` });
  const worker = new DeliveryWorker({
    outbox,
    sender,
    endpoints: options.urls,
    retrySchedule: options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS,
    leaseMs: leaseMsFor(timeoutMs, outboxLimits.callTimeoutMs),
    settleConcurrency: outboxLimits.settleConcurrency,
    log,
  });
  return { subscriptions: new Subscriptions(options.urls, options.events ?? DEFAULT_WEBHOOK_EVENTS), worker, outbox };
}

export async function deliveryStateOf(outbox: DeliveryOutbox, now = Date.now()): Promise<WebhookDeliveryState> {
  const state = await outbox.state();
  return state.oldestPendingAt === undefined ? state : { ...state, oldestPendingAgeMs: Math.max(0, now - state.oldestPendingAt) };
}
