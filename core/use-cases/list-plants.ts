import { ErrorCode } from '../error-codes.js';
import { isPageQueryObject, parsePageQuery, type PageQuery } from '../parameter-validation.js';
import type { Plant } from '../plant.js';
import { PlantStoreError } from '../plant-store-error.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantsIn } from '../sandbox.js';

/** The query for the following page, in the shape `execute` takes, filters kept. */
export interface NextPageQuery {
  readonly limit: number;
  readonly after: number;
  readonly tags?: readonly string[];
}

export interface PlantPage {
  readonly plants: Plant[];
  /** The query for the following page; absent on the last page. */
  readonly next?: NextPageQuery;
}

export class ListPlants {
  constructor(private readonly plants: PlantRepository) {}

  /** `sandbox`: whose plants; the default sandbox when omitted. */
  async execute(query?: PageQuery, sandbox?: string): Promise<PlantPage> {
    if (!isPageQueryObject(query)) throw new PlantStoreError(ErrorCode.InvalidParameter, 'the page query must be an object');
    const request = parsePageQuery(query);
    // One extra row tells whether another page follows, without a count query.
    const rows = await plantsIn(this.plants, sandbox).page({ ...request, limit: request.limit + 1 });
    if (rows.length <= request.limit) return { plants: rows };
    const plants = rows.slice(0, request.limit);
    const after = plants[plants.length - 1]!.id;
    return { plants, next: request.tags === undefined ? { limit: request.limit, after } : { limit: request.limit, after, tags: request.tags } };
  }
}
