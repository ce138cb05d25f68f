import { parsePlantId } from '../parameter-validation.js';
import type { EventPublisher } from '../ports/event-publisher.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantNotFound } from './get-plant.js';

export class DeletePlant {
  constructor(
    private readonly plants: PlantRepository,
    private readonly events: EventPublisher,
  ) {}

  async execute(rawId: unknown): Promise<void> {
    const id = parsePlantId(rawId);
    if (!(await this.plants.remove(id))) throw plantNotFound(id);
    this.events.publish({ type: 'plant.deleted', data: { id } });
  }
}
