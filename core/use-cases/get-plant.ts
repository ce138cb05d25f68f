import { ErrorCode } from '../error-codes.js';
import { parsePlantId } from '../parameter-validation.js';
import type { Plant } from '../plant.js';
import { PlantStoreError } from '../plant-store-error.js';
import type { PlantRepository } from '../ports/plant-repository.js';

export class GetPlant {
  constructor(private readonly plants: PlantRepository) {}

  async execute(id: number): Promise<Plant> {
    parsePlantId(id);
    const plant = await this.plants.findById(id);
    if (plant === undefined) throw plantNotFound(id);
    return plant;
  }
}

export function plantNotFound(id: number): PlantStoreError {
  return new PlantStoreError(ErrorCode.PlantNotFound, `no plant with id ${id}`);
}
