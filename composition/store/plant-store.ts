import { setMaxListeners } from 'node:events';
import type { NewPlant, PageQuery, Plant, PlantPage, PlantUseCases } from '../../core/index.js';
import type { MetricsRegistry } from '../../adapters/metrics/metrics-registry.js';
import { ConfigError } from '../config/config-error.js';
import { PlantSandbox } from './plant-sandbox.js';
import type { SelfService } from './self-service.js';
import type { InProcessEventBus, PlantEventListener } from '../../adapters/events/in-process-event-bus.js';
import { deliveryStateOf, type WebhookDelivery, type WebhookDeliveryState } from './webhook-delivery.js';
import { sandboxProblemIn, type OpenStorage } from './storage.js';
import { storeChanges, type ChangesOptions, type StoreChange } from './store-changes.js';

/** What a store is made of; assembleStore puts it together. */
export interface StoreParts {
  readonly storage: OpenStorage;
  readonly events: InProcessEventBus;
  readonly useCases: PlantUseCases;
  readonly webhooks?: WebhookDelivery | undefined;
  readonly selfService?: SelfService | undefined;
  readonly metrics?: MetricsRegistry | undefined;
  /** Stops pruning the change log (feed-retention.ts). */
  readonly stopFeedRetention?: (() => Promise<void>) | undefined;
}

/**
 * The embedded API: the same use cases, validation and numeric error codes as the HTTP
 * API, without HTTP. Failures are thrown as PlantStoreError with `code` from the contract.
 */
export class PlantStore {
  /** The use cases behind this store, for serving it over HTTP. */
  readonly useCases: PlantUseCases;
  /**
   * The store's metrics (storage calls, webhooks), a prom-client Registry, when it was
   * created with `metrics: true`; a host program adds them to its own `/metrics`
   * (docs/metrics.md). A server serving the store with metrics on adds its HTTP metrics
   * and Node's own to it.
   */
  readonly metrics: MetricsRegistry | undefined;
  private readonly storage: OpenStorage;
  private readonly events: InProcessEventBus;
  private readonly webhooks: WebhookDelivery | undefined;
  /** Self-service sandboxes (sign-up, ending, expiry), when configured; for serving them over HTTP. */
  readonly selfService: SelfService | undefined;
  private readonly stopFeedRetention: (() => Promise<void>) | undefined;
  /** Aborts on close: every `changes()` iteration ends. */
  private readonly closing = new AbortController();

  /** @internal Made by createPlantStore or buildServer (assembleStore), which start what it runs. */
  constructor(parts: StoreParts) {
    // Every open `changes()` iteration listens to it (until it ends): no limit, or Node warns past 10.
    setMaxListeners(0, this.closing.signal);
    ({ storage: this.storage, events: this.events, useCases: this.useCases, webhooks: this.webhooks, selfService: this.selfService, metrics: this.metrics, stopFeedRetention: this.stopFeedRetention } = parts);
  }

  /** Whether the storage keeps sandboxes (memory, disk and MongoDB do; a custom repository may not). */
  get keepsSandboxes(): boolean {
    return this.storage.repository.sandbox !== undefined;
  }

  /**
   * The plants of one sandbox, with ids of their own: the same calls as the store's, which
   * are the default sandbox's. Throws ConfigError for a name outside `[a-z0-9-]{1,64}` or a
   * storage without sandboxes.
   */
  sandbox(name: string): PlantSandbox {
    const problem = sandboxProblemIn(this.storage, name);
    if (problem !== undefined) throw new ConfigError(problem);
    return new PlantSandbox(this.useCases, this.events, this.webhooks, name, this.closing.signal);
  }

  /** Description of the storage in use, e.g. "memory". */
  get storageDescription(): string {
    return this.storage.description;
  }

  /** One page of plants by ascending id; `next` is the query for the following page. */
  list(query?: PageQuery): Promise<PlantPage> {
    return this.useCases.listPlants.execute(query);
  }

  get(id: number): Promise<Plant> {
    return this.useCases.getPlant.execute(id);
  }

  /**
   * Validates and stores `{ id, name, tag? }`. The same rules run for JavaScript callers the
   * compiler did not check (40001 / 40002); properties other than the three are ignored.
   */
  create(plant: NewPlant): Promise<Plant> {
    return this.useCases.createPlant.execute(plant);
  }

  delete(id: number): Promise<void> {
    return this.useCases.deletePlant.execute(id);
  }

  /** Calls `listener` with every plant.created / plant.deleted of every sandbox (`event.sandbox` names a non-default one); returns the unsubscribe. */
  subscribe(listener: PlantEventListener): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * The default sandbox's changes, live and resumable (docs/change-feed.md): every change
   * after `after` (a cursor of an earlier change) or, without one, from now, in commit
   * order, waiting for the next; a `feed.reset` first when `after` is unknown or older than
   * the retained log. Unlike `subscribe`, it survives a restart of the program (on disk or
   * MongoDB): resume from the last cursor seen. Ends when `signal` aborts, the loop leaves,
   * or the store closes.
   */
  changes(options: ChangesOptions = {}): AsyncIterable<StoreChange> {
    return storeChanges(this.useCases, undefined, options, this.closing.signal);
  }

  /** Resolves when storage answers; rejects with code 50301 when it does not. */
  ping(): Promise<void> {
    return this.storage.repository.ping();
  }

  /** Whether changes are delivered as webhooks. */
  get hasWebhooks(): boolean {
    return this.webhooks !== undefined;
  }

  /** Webhook deliveries waiting and failed, of one sandbox or (none named) of every sandbox; all zero and empty without webhooks. */
  async deliveryState(sandbox?: string): Promise<WebhookDeliveryState> {
    return this.webhooks === undefined ? { pending: 0, failed: [] } : deliveryStateOf(this.webhooks.outbox, this.webhooks.clock.now(), sandbox);
  }

  /** Makes every failed webhook delivery pending again (attempts start over, endpoints that answered 410 included); returns how many. */
  async retryFailedDeliveries(): Promise<number> {
    if (this.webhooks === undefined) return 0;
    return this.webhooks.worker.retryFailed();
  }

  /** Ends every `changes()` iteration, stops webhook delivery (attempts under way finish), then closes the storage. */
  async close(): Promise<void> {
    this.closing.abort();
    await this.stopFeedRetention?.();
    await this.selfService?.stop();
    await this.webhooks?.worker.stop();
    await this.storage.close();
  }
}
