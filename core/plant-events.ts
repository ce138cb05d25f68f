import type { Plant } from './plant.js';

/** `data` of plant.created is the NewPlant body of the public webhook. */
export interface PlantCreated {
  readonly type: 'plant.created';
  readonly data: Plant;
}

export interface PlantDeleted {
  readonly type: 'plant.deleted';
  readonly data: { readonly id: number };
}

export type PlantEvent = PlantCreated | PlantDeleted;
