import type { CreatePlant } from './create-plant.js';
import type { FollowChanges } from '../feed/follow-changes.js';
import type { DeletePlant } from './delete-plant.js';
import type { GetPlant } from './get-plant.js';
import type { ListPlants } from './list-plants.js';

/** Everything a driving adapter (HTTP, embedded API) may ask of the store. */
export interface PlantUseCases {
  readonly listPlants: ListPlants;
  readonly getPlant: GetPlant;
  readonly createPlant: CreatePlant;
  readonly deletePlant: DeletePlant;
  /** Absent in use cases made before the change feed existed (a hand-made set): no feed then. */
  readonly followChanges?: FollowChanges;
}
