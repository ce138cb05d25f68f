import { parsePlantId } from '../parameter-validation.js';
import { NO_SUBSCRIPTIONS, type Subscriptions } from '../outbox/subscriptions.js';
import type { EventPublisher } from '../ports/event-publisher.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantDeleted } from '../plant-events.js';
import { plantsIn } from '../sandbox.js';
import { plantNotFound } from './get-plant.js';

export class DeletePlant {
  constructor(
    private readonly plants: PlantRepository,
    private readonly events: EventPublisher,
    private readonly subscriptions: Subscriptions = NO_SUBSCRIPTIONS,
  ) {}

  /** `sandbox`: whose plant; the default sandbox when omitted. */
  async execute(id: number, sandbox?: string): Promise<void> {
    parsePlantId(id);
    const event = plantDeleted(id, sandbox);
    if (!(await plantsIn(this.plants, sandbox).remove(id, this.subscriptions.deliveriesFor(event)))) throw plantNotFound(id);
    this.events.publish(event);
  }
}
