import { parsePlantId } from '../parameter-validation.js';
import { NO_SUBSCRIPTIONS, type Subscriptions } from '../outbox/subscriptions.js';
import type { EventPublisher } from '../ports/event-publisher.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantNotFound } from './get-plant.js';

export class DeletePlant {
  constructor(
    private readonly plants: PlantRepository,
    private readonly events: EventPublisher,
    private readonly subscriptions: Subscriptions = NO_SUBSCRIPTIONS,
  ) {}

  async execute(id: number): Promise<void> {
    parsePlantId(id);
    const event = { type: 'plant.deleted', data: { id } } as const;
    if (!(await this.plants.remove(id, this.subscriptions.deliveriesFor(event)))) throw plantNotFound(id);
    this.events.publish(event);
  }
}
