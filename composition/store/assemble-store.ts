import 'reflect-metadata';
import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { CreatePlant, DeletePlant, FollowChanges, GetPlant, ListPlants, type Clock, type Log } from '../../core/index.js';
import { systemClock } from '../../adapters/clock/system-clock.js';
import { InProcessEventBus, type ListenerErrorReporter } from '../../adapters/events/in-process-event-bus.js';
import { consoleLog } from '../../adapters/log/console-log.js';
import { WebhookSender } from '../../adapters/webhooks/webhook-sender.js';
import { InjectionTokens } from './injection-tokens.js';
import { PlantStore } from './plant-store.js';
import { openStorage, type StorageOpener, type StorageOption } from './storage.js';
import { webhookDeliveryFor, type TransportFactory, type WebhookDelivery } from './webhook-delivery.js';
import type { WebhookOptions } from './webhook-options.js';
import type { SandboxOptions } from '../config/sandbox-settings.js';
import { selfServiceFor, type SelfService } from './self-service.js';
import type { StoreMetrics } from './store-metrics.js';
import { DEFAULT_FEED_RETENTION_MS, startFeedRetention } from './feed-retention.js';

/** What a store is made of beyond its ports: the options a caller or a configuration gives. */
export interface StoreRecipe {
  readonly storage?: StorageOption | undefined;
  readonly webhooks?: WebhookOptions | undefined;
  /** Self-service sandboxes (sign-up, quota, expiry); none when absent. */
  readonly sandboxes?: SandboxOptions | undefined;
  readonly onListenerError?: ListenerErrorReporter | undefined;
  /** Keep metrics (docs/metrics.md): the store's calls to storage timed, its webhooks counted. */
  readonly metrics?: boolean | undefined;
  /** The change feed's log: how long a change is kept for clients to resume (default DEFAULT_FEED_RETENTION_MS, a day). */
  readonly feed?: { readonly retentionMs?: number | undefined } | undefined;
}

/**
 * Registers the default of every store port the container does not hold yet: the one place
 * they are chosen. A server registers its own log (and token verifier) first; a test its
 * own storage, log, clock or transport.
 */
export function registerStorePorts(container: DependencyContainer, storage: StorageOption | undefined): void {
  registerDefault<StorageOpener>(container, InjectionTokens.Storage, () => () => openStorage(storage));
  registerDefault<Log>(container, InjectionTokens.Log, () => consoleLog);
  registerDefault<Clock>(container, InjectionTokens.Clock, () => systemClock);
  registerDefault<TransportFactory>(container, InjectionTokens.WebhookTransport, () => (options) => new WebhookSender(options));
}

export function registerDefault<T>(container: DependencyContainer, token: symbol, make: () => T): void {
  if (!container.isRegistered(token, true)) container.register<T>(token, { useFactory: instanceCachingFactory(make) });
}

/**
 * The one path from ports to a running store, taken by createPlantStore and buildServer
 * alike: storage opened, webhook delivery wired to its outbox, use cases built, the worker
 * started. The use cases are made with `new`, not resolved: core classes carry no
 * decorators, and four constructor calls say more than four container factories would.
 */
export async function assembleStore(container: DependencyContainer, recipe: StoreRecipe): Promise<PlantStore> {
  registerStorePorts(container, recipe.storage);
  const log = container.resolve<Log>(InjectionTokens.Log);
  const clock = container.resolve<Clock>(InjectionTokens.Clock);
  let storage = await container.resolve<StorageOpener>(InjectionTokens.Storage)();
  let webhooks: WebhookDelivery | undefined;
  let selfService: SelfService | undefined;
  let metrics: StoreMetrics | undefined;
  try {
    // Loaded only when asked for, like the storage drivers: a store without metrics never loads prom-client.
    metrics = recipe.metrics ? await (await import('./store-metrics.js')).storeMetricsFor(storage, clock, recipe.webhooks !== undefined) : undefined;
    storage = metrics?.storage ?? storage;
    webhooks =
      recipe.webhooks &&
      webhookDeliveryFor(recipe.webhooks, storage, {
        log,
        clock,
        transport: container.resolve<TransportFactory>(InjectionTokens.WebhookTransport),
        metrics: metrics?.deliveries,
      });
    selfService = recipe.sandboxes && (await selfServiceFor(recipe.sandboxes, storage.repository, clock, log));
    const grants = selfService?.sandboxes.registry;
    metrics?.countSandboxes(grants && (async () => (await grants.list()).length));
  } catch (error) {
    await storage.close();
    throw error;
  }
  const events = new InProcessEventBus(recipe.onListenerError ?? ((error, event) => log.error({ err: error, event: event.type }, 'an event listener failed')));
  const { repository } = storage;
  const subscriptions = webhooks?.subscriptions;
  const useCases = {
    listPlants: new ListPlants(repository),
    getPlant: new GetPlant(repository),
    createPlant: new CreatePlant(repository, events, subscriptions, selfService?.sandboxes),
    deletePlant: new DeletePlant(repository, events, subscriptions),
    followChanges: new FollowChanges(repository),
  };
  const retention = repository.changeRetention;
  const stopFeedRetention = retention && startFeedRetention(retention, recipe.feed?.retentionMs ?? DEFAULT_FEED_RETENTION_MS, log);
  if (webhooks !== undefined) {
    const { worker } = webhooks;
    // A change is in the outbox before its event is published: wake the worker to send it now.
    events.subscribe(() => worker.wake());
    worker.start();
  }
  return new PlantStore({ storage, events, useCases, webhooks, selfService, metrics: metrics?.registry, stopFeedRetention });
}
