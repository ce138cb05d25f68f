import { DEFAULT_SANDBOX, type NewPlant, type PageQuery, type Plant, type PlantPage, type PlantUseCases } from '../../core/index.js';
import type { InProcessEventBus, PlantEventListener } from '../../adapters/events/in-process-event-bus.js';
import { storeChanges, type ChangesOptions, type StoreChange } from './store-changes.js';
import { deliveryStateOf, type WebhookDelivery, type WebhookDeliveryState } from './webhook-delivery.js';

/**
 * One sandbox of an embedded store (`store.sandbox(name)`): the store's calls, on that
 * sandbox's plants only. Cheap to make; it holds nothing of its own.
 */
export class PlantSandbox {
  /** @internal Made by PlantStore.sandbox(). */
  constructor(
    private readonly useCases: PlantUseCases,
    private readonly events: InProcessEventBus,
    private readonly webhooks: WebhookDelivery | undefined,
    /** The sandbox's name. */
    readonly name: string,
    private readonly closing: AbortSignal,
  ) {}

  list(query?: PageQuery): Promise<PlantPage> {
    return this.useCases.listPlants.execute(query, this.name);
  }

  get(id: number): Promise<Plant> {
    return this.useCases.getPlant.execute(id, this.name);
  }

  create(plant: NewPlant): Promise<Plant> {
    return this.useCases.createPlant.execute(plant, this.name);
  }

  delete(id: number): Promise<void> {
    return this.useCases.deletePlant.execute(id, this.name);
  }

  /** Calls `listener` with this sandbox's plant.created / plant.deleted only; returns the unsubscribe. */
  subscribe(listener: PlantEventListener): () => void {
    return this.events.subscribe((event) => ((event.sandbox ?? DEFAULT_SANDBOX) === this.name ? listener(event) : undefined));
  }

  /** This sandbox's changes, live and resumable: as PlantStore.changes, for this sandbox. */
  changes(options: ChangesOptions = {}): AsyncIterable<StoreChange> {
    return storeChanges(this.useCases, this.name, options, this.closing);
  }

  /** This sandbox's webhook deliveries waiting and failed. */
  async deliveryState(): Promise<WebhookDeliveryState> {
    return this.webhooks === undefined ? { pending: 0, failed: [] } : deliveryStateOf(this.webhooks.outbox, this.webhooks.clock.now(), this.name);
  }
}
