import { ErrorCode } from '../error-codes.js';
import { parsePlantId } from '../parameter-validation.js';
import type { Plant } from '../plant.js';
import { PlantStoreError } from '../plant-store-error.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantsIn } from '../sandbox.js';

export class GetPlant {
  constructor(private readonly plants: PlantRepository) {}

  /** `sandbox`: whose plant; the default sandbox when omitted. */
  async execute(id: number, sandbox?: string): Promise<Plant> {
    parsePlantId(id);
    const plant = await plantsIn(this.plants, sandbox).findById(id);
    if (plant === undefined) throw plantNotFound(id);
    return plant;
  }
}

export function plantNotFound(id: number): PlantStoreError {
  return new PlantStoreError(ErrorCode.PlantNotFound, `no plant with id ${id}`);
}
