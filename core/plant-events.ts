import type { Plant } from './plant.js';

/** `data` of plant.created is the NewPlant body of the public webhook. */
export interface PlantCreated {
  readonly type: 'plant.created';
  readonly data: Plant;
  /** The plant's sandbox; absent for the default one. */
  readonly sandbox?: string;
}

export interface PlantDeleted {
  readonly type: 'plant.deleted';
  readonly data: { readonly id: number };
  /** The plant's sandbox; absent for the default one. */
  readonly sandbox?: string;
}

export type PlantEvent = PlantCreated | PlantDeleted;

// Events of the default sandbox carry no `sandbox` field: what is stored for them (with a
// pending delivery) is what was stored before sandboxes existed. Two literal shapes, no
// spread: one is made per create or delete.
const isDefault = (sandbox: string | undefined): sandbox is undefined | 'default' => sandbox === undefined || sandbox === 'default';

export function plantCreated(plant: Plant, sandbox?: string): PlantCreated {
  return isDefault(sandbox) ? { type: 'plant.created', data: plant } : { type: 'plant.created', data: plant, sandbox };
}

export function plantDeleted(id: number, sandbox?: string): PlantDeleted {
  return isDefault(sandbox) ? { type: 'plant.deleted', data: { id } } : { type: 'plant.deleted', data: { id }, sandbox };
}
