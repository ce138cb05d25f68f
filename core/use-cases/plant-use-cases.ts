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
  /** Always there; `available` says whether the storage keeps a change log. */
  readonly followChanges: FollowChanges;
}
