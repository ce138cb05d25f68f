/**
 * A plant as the store keeps and returns it. `tag` is absent (never null) when the plant
 * has none, so every representation — JSON, embedded objects, MongoDB documents — agrees.
 */
export interface Plant {
  readonly id: number;
  readonly name: string;
  readonly tag?: string;
}

/** Largest id: 2^53−1, exact in every JSON client and inside the public int64 type. */
export const MAX_PLANT_ID = Number.MAX_SAFE_INTEGER;
export const MAX_NAME_LENGTH = 200;
export const MAX_TAG_LENGTH = 50;

/** What a caller sends to create a plant (the public contract's NewPlant); `null` tag means none. */
export interface NewPlant {
  readonly id: number;
  readonly name: string;
  readonly tag?: string | null;
}
