import {
  CreatePlant,
  DeletePlant,
  GetPlant,
  ListPlants,
  type NewPlant,
  type PageQuery,
  type Plant,
  type PlantPage,
  type PlantUseCases,
} from '../../core/index.js';
import {
  InProcessEventBus,
  type ListenerErrorReporter,
  type PlantEventListener,
} from '../../adapters/events/in-process-event-bus.js';
import { buildContainer } from './container.js';
import type { DeliveryLog } from '../../adapters/webhooks/delivery-worker.js';
import { consoleDeliveryLog, deliveryStateOf, webhookDeliveryFor, type WebhookDelivery, type WebhookDeliveryState } from './webhook-delivery.js';
import type { WebhookOptions } from './webhook-options.js';
import { openStorage, type OpenStorage, type StorageOption } from './storage.js';

export interface PlantStoreOptions {
  /** Omitted: plants are kept in memory. */
  readonly storage?: StorageOption;
  /** Where a failing event listener is reported; by default, standard error. */
  readonly onListenerError?: ListenerErrorReporter;
  /**
   * Deliver changes as signed webhooks, recorded with each change in the storage's outbox.
   * On memory storage, pending deliveries are lost when the process ends.
   */
  readonly webhooks?: WebhookOptions & { readonly log?: DeliveryLog };
}

/**
 * The embedded API: the same use cases, validation and numeric error codes as the HTTP
 * API, without HTTP. Failures are thrown as PlantStoreError with `code` from the contract.
 */
export class PlantStore {
  /** The use cases behind this store, for serving it over HTTP. */
  readonly useCases: PlantUseCases;

  constructor(
    private readonly storage: OpenStorage,
    private readonly events: InProcessEventBus,
    private readonly webhooks?: WebhookDelivery,
  ) {
    const container = buildContainer({ repository: storage.repository, events, subscriptions: webhooks?.subscriptions });
    if (webhooks !== undefined) {
      // A change is in the outbox before its event is published: wake the worker to send it now.
      events.subscribe(() => webhooks.worker.wake());
      webhooks.worker.start();
    }
    this.useCases = {
      listPlants: container.resolve(ListPlants),
      getPlant: container.resolve(GetPlant),
      createPlant: container.resolve(CreatePlant),
      deletePlant: container.resolve(DeletePlant),
    };
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

  /** Calls `listener` with every plant.created / plant.deleted; returns the unsubscribe. */
  subscribe(listener: PlantEventListener): () => void {
    return this.events.subscribe(listener);
  }

  /** Resolves when storage answers; rejects with code 50301 when it does not. */
  ping(): Promise<void> {
    return this.storage.repository.ping();
  }

  /** Whether changes are delivered as webhooks. */
  get hasWebhooks(): boolean {
    return this.webhooks !== undefined;
  }

  /** Webhook deliveries waiting and failed; all zero and empty without webhooks. */
  async deliveryState(): Promise<WebhookDeliveryState> {
    return this.webhooks === undefined ? { pending: 0, failed: [] } : deliveryStateOf(this.webhooks.outbox);
  }

  /** Makes every failed webhook delivery pending again (attempts start over, endpoints that answered 410 included); returns how many. */
  async retryFailedDeliveries(): Promise<number> {
    if (this.webhooks === undefined) return 0;
    return this.webhooks.worker.retryFailed();
  }

  /** Stops webhook delivery (attempts under way finish), then closes the storage. */
  async close(): Promise<void> {
    await this.webhooks?.worker.stop();
    await this.storage.close();
  }
}

export async function createPlantStore(options: PlantStoreOptions = {}): Promise<PlantStore> {
  const storage = await openStorage(options.storage);
  const report: ListenerErrorReporter =
    options.onListenerError ?? ((error, event) => console.error(`plant-store: a ${event.type} listener failed:`, error));
  let webhooks: WebhookDelivery | undefined;
  try {
    webhooks = options.webhooks && webhookDeliveryFor(options.webhooks, storage, options.webhooks.log ?? consoleDeliveryLog);
  } catch (error) {
    await storage.close();
    throw error;
  }
  return new PlantStore(storage, new InProcessEventBus(report), webhooks);
}
