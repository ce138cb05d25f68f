import { parsePlantId } from '../parameter-validation.js';
import type { EventPublisher } from '../ports/event-publisher.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantNotFound } from './get-plant.js';

export class DeletePlant {
  constructor(
    private readonly plants: PlantRepository,
    private readonly events: EventPublisher,
  ) {}

  async execute(id: number): Promise<void> {
    parsePlantId(id);
    if (!(await this.plants.remove(id))) throw plantNotFound(id);
    this.events.publish({ type: 'plant.deleted', data: { id } });
  }
}
