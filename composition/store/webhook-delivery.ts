import { DEFAULT_RETRY_SCHEDULE_MS, leaseMsFor, Subscriptions, type Clock, type DeliveryMetrics, type DeliveryOutbox, type DeliveryState, type Log, type WebhookTransport } from '../../core/index.js';
import { surelyRefused } from '../../adapters/webhooks/address-guard.js';
import { currentTraceId } from '../../adapters/tracing/trace-scope.js';
import { DeliveryWorker } from '../../adapters/webhooks/delivery-worker.js';
import type { WebhookSenderOptions } from '../../adapters/webhooks/webhook-sender.js';
import { ConfigError } from '../config/config-error.js';
import { packageVersion } from '../package-version.js';
import { DEFAULT_OUTBOX_LIMITS, type OpenStorage } from './storage.js';
import { DEFAULT_WEBHOOK_EVENTS, DEFAULT_WEBHOOK_TIMEOUT_MS, webhookOptionsProblem, type WebhookOptions } from './webhook-options.js';

/** Makes the transport deliveries go out by (WebhookSender: signed HTTP); closed when the worker stops. */
export type TransportFactory = (options: WebhookSenderOptions) => WebhookTransport & { close(): void };

/** The ports webhook delivery runs on, resolved by assembleStore. */
export interface DeliveryPorts {
  readonly log: Log;
  readonly clock: Clock;
  readonly transport: TransportFactory;
  /** Hears how every attempt ended; absent without metrics. */
  readonly metrics?: DeliveryMetrics | undefined;
}

/** Webhook delivery as wired for one store: who gets what, and the worker sending it. */
export interface WebhookDelivery {
  readonly subscriptions: Subscriptions;
  readonly worker: DeliveryWorker;
  readonly outbox: DeliveryOutbox;
  readonly clock: Clock;
}

/** The delivery state plus how old the oldest pending delivery is. */
export interface WebhookDeliveryState extends DeliveryState {
  /** Age of the oldest pending delivery in ms; absent when nothing is pending. */
  readonly oldestPendingAgeMs?: number;
}

/** Checks the options and wires the worker (not started) to the storage's outbox; ConfigError when they cannot work. */
export function webhookDeliveryFor(options: WebhookOptions, storage: Pick<OpenStorage, 'outbox' | 'outboxLimits'>, { log, clock, transport, metrics }: DeliveryPorts): WebhookDelivery {
  const problem = webhookOptionsProblem(options);
  if (problem !== undefined) throw new ConfigError(problem);
  const { outbox, outboxLimits = DEFAULT_OUTBOX_LIMITS } = storage;
  if (outbox === undefined) throw new ConfigError('webhooks need a storage with an outbox (memory, disk or mongodb; a custom repository must provide `outbox`)');
  if (options.allowPrivate !== true) warnOfRefusedEndpoints(options.urls, log);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const sender = transport({ secret: options.secret, timeoutMs, allowPrivate: options.allowPrivate ?? false, userAgent: `plant-store/${packageVersion}` });
  const worker = new DeliveryWorker({
    outbox,
    sender,
    endpoints: options.urls,
    retrySchedule: options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS,
    leaseMs: leaseMsFor(timeoutMs, outboxLimits.callTimeoutMs),
    settleConcurrency: outboxLimits.settleConcurrency,
    log,
    clock,
    metrics,
  });
  // Deliveries are made due by the same clock the worker reads them by, and carry the trace
  // id of the request that made the change (set around the use case by the HTTP adapter).
  const subscriptions = new Subscriptions(options.urls, options.events ?? DEFAULT_WEBHOOK_EVENTS, () => clock.now(), currentTraceId);
  return { subscriptions, worker, outbox, clock };
}

/** Said at start-up, not at each refused attempt: a loopback URL is the first thing a newcomer tries. */
function warnOfRefusedEndpoints(urls: readonly string[], log: Log): void {
  for (const url of urls) {
    if (!surelyRefused(url)) continue;
    // The host only: a URL's path or query may carry a receiver's secret.
    const { host } = new URL(url);
    log.warn(
      { endpoint: host },
      `webhook endpoint ${host} is a loopback or private address: every delivery to it will be refused; allow such endpoints with --webhook-allow-private (PLANT_STORE_WEBHOOK_ALLOW_PRIVATE=true, or webhooks.allowPrivate when embedded)`,
    );
  }
}

export async function deliveryStateOf(outbox: DeliveryOutbox, now: number, sandbox?: string): Promise<WebhookDeliveryState> {
  const state = await outbox.state(sandbox);
  return state.oldestPendingAt === undefined ? state : { ...state, oldestPendingAgeMs: Math.max(0, now - state.oldestPendingAt) };
}
