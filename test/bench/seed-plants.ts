/**
 * The plants every contender holds: the same ids, names and tags, made up the same way
 * each time, so that every server answers with the same bytes.
 */
export interface SeedPlant {
  id: number;
  name: string;
  tag?: string;
}

const names = ['Monstera', 'Fern', 'Pothos', 'Calathea', 'Ficus', 'Aloe', 'Snake plant', 'Peace lily', 'Begonia', 'Hoya', 'Philodendron'];
const tags = ['tropical', 'succulent', 'hanging', 'flowering', 'air-purifying', 'shade', 'herb'];

/** Plant number `id` (1, 2, …); one in five has no tag, as real collections do. */
export function seedPlant(id: number): SeedPlant {
  const name = `${names[id % names.length]} ${id}`;
  return id % 5 === 0 ? { id, name } : { id, name, tag: tags[id % tags.length]! };
}

export function* seedPlants(count: number): Generator<SeedPlant> {
  for (let id = 1; id <= count; id++) yield seedPlant(id);
}

/** The name of the benchmarks' sandbox number `n` (1, 2, …): `sb-00001`, so names sort as numbers do. */
export const sandboxName = (n: number) => `sb-${String(n).padStart(5, '0')}`;

/** First id the write workloads use: far above any seeded id, so no write ever collides. */
export const FIRST_WRITE_ID = 10_000_000;

/** The plant a write workload creates with a fresh id. */
export function newPlant(id: number): SeedPlant {
  return { id, name: `Bench plant ${id}`, tag: 'bench' };
}

/** A body for POST /plants with a fresh id. */
export function newPlantBody(id: number): string {
  return JSON.stringify(newPlant(id));
}
