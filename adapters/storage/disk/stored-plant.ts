import type { Plant } from '../../../core/index.js';

/** What is kept of a plant: its id is (part of) the key it is stored under. */
export interface StoredPlant {
  readonly name: string;
  readonly tag?: string;
}

export const toStored = (plant: Plant): StoredPlant => (plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag });
export const toPlant = (id: number, stored: StoredPlant): Plant =>
  stored.tag === undefined || stored.tag === null ? { id, name: stored.name } : { id, name: stored.name, tag: stored.tag };
