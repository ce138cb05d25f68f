import { parsePageQuery, type PageQueryInput } from '../parameter-validation.js';
import type { Plant } from '../plant.js';
import type { PlantRepository } from '../ports/plant-repository.js';

/** The query for the following page, in the shape `execute` takes, filters kept. */
export interface NextPageQuery {
  readonly limit: number;
  readonly after: number;
  readonly tag?: readonly string[];
}

export interface PlantPage {
  readonly plants: Plant[];
  /** The query for the following page; absent on the last page. */
  readonly next?: NextPageQuery;
}

export class ListPlants {
  constructor(private readonly plants: PlantRepository) {}

  async execute(query?: PageQueryInput): Promise<PlantPage> {
    const request = parsePageQuery(query);
    // One extra row tells whether another page follows, without a count query.
    const rows = await this.plants.page({ ...request, limit: request.limit + 1 });
    if (rows.length <= request.limit) return { plants: rows };
    const plants = rows.slice(0, request.limit);
    const after = plants[plants.length - 1]!.id;
    return { plants, next: request.tags === undefined ? { limit: request.limit, after } : { limit: request.limit, after, tag: request.tags } };
  }
}
