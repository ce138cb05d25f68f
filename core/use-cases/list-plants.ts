import { parsePageQuery, type PageQueryInput } from '../parameter-validation.js';
import type { Plant } from '../plant.js';
import type { PageRequest, PlantRepository } from '../ports/plant-repository.js';

export interface PlantPage {
  readonly plants: Plant[];
  /** The request for the following page; absent on the last page. */
  readonly next?: PageRequest;
}

export class ListPlants {
  constructor(private readonly plants: PlantRepository) {}

  async execute(query?: PageQueryInput): Promise<PlantPage> {
    const request = parsePageQuery(query);
    // One extra row tells whether another page follows, without a count query.
    const rows = await this.plants.page({ ...request, limit: request.limit + 1 });
    if (rows.length <= request.limit) return { plants: rows };
    const plants = rows.slice(0, request.limit);
    return { plants, next: { ...request, after: plants[plants.length - 1]!.id } };
  }
}
