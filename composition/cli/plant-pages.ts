import type { Plant, PlantRepository } from '../../core/index.js';

const PAGE = 1000;

/** Every plant of the repository, a page at a time by ascending id: memory holds one page. */
export async function* plantPages(repository: PlantRepository): AsyncGenerator<Plant[]> {
  let after: number | undefined;
  for (;;) {
    const page = await repository.page(after === undefined ? { limit: PAGE } : { limit: PAGE, after });
    if (page.length === 0) return;
    yield page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.id;
  }
}
