import type { Plant } from '../../../core/index.js';

/**
 * A plant as stored in MongoDB. The plant id is `_id`, so the primary key index makes ids
 * unique and serves id ranges; nothing else is ever written.
 */
export interface PlantDocument {
  _id: number;
  name: string;
  tag?: string;
}

// Field by field, in both directions: unknown fields neither reach the database nor leave it.
export function toDocument(plant: Plant): PlantDocument {
  return plant.tag === undefined ? { _id: plant.id, name: plant.name } : { _id: plant.id, name: plant.name, tag: plant.tag };
}

export function toPlant(document: PlantDocument): Plant {
  // A tag of null (written by hand, say) means no tag, as it does on the wire.
  return document.tag === undefined || document.tag === null
    ? { id: document._id, name: document.name }
    : { id: document._id, name: document.name, tag: document.tag };
}

/** The projection matching PlantDocument, so stray fields are not even transferred. */
export const plantProjection = { _id: 1, name: 1, tag: 1 } as const;
