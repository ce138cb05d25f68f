/**
 * Seeds a running server with the seed plants through its API (`POST /plants`), as a client
 * would: for a server of several processes, where no one process can be seeded from within.
 */
import { seedPlants, type SeedPlant } from './seed-plants.js';

/** Creates in flight at once: a durable storage commits concurrent creates together. */
const CONCURRENCY = 50;

export async function seedOverHttp(url: string, token: string, count: number): Promise<void> {
  const plants = seedPlants(count);
  const create = async (plant: SeedPlant) => {
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(plant),
    });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`seeding plant ${plant.id}: ${response.status} ${body.slice(0, 200)}`);
  };
  // Each lane takes the next plant until none is left.
  const lane = async () => {
    for (let next = plants.next(); !next.done; next = plants.next()) await create(next.value);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}
