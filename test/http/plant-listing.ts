import { expect } from 'chai';
import type { PlantStore } from '../../composition/index.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import type { HttpClient } from '../support/http-client.js';
import { expectError, expectOk, expectPlantList, ids, nextLink, type ExpectedPlant } from '../support/http-expect.js';
import { useHttpServer } from '../support/http-server.js';

/** Creates plants through the embedded store: set-up without one HTTP call per plant. */
async function seed(store: PlantStore, plants: readonly ExpectedPlant[]): Promise<void> {
  for (let i = 0; i < plants.length; i += 100) await Promise.all(plants.slice(i, i + 100).map((plant) => store.create(plant)));
}

/** Follows `Link: rel="next"` from `path` to the last page; returns every plant seen and the page count. */
async function walk(http: HttpClient, origin: string, path: string): Promise<{ plants: ExpectedPlant[]; pages: number }> {
  const plants: ExpectedPlant[] = [];
  let response = await http.get(path);
  for (let pages = 1; ; pages++) {
    expectOk(response, 200);
    plants.push(...(response.body as ExpectedPlant[]));
    const next = nextLink(response);
    if (next === undefined) return { plants, pages };
    expect(pages, 'too many pages').to.be.below(100);
    response = await http.get(new URL(next, origin).href);
  }
}

// Ids divisible by 3 are ferns, ids of the form 3k+1 palms, the rest untagged.
const tagOf = (id: number) => ['fern', 'palm', undefined][id % 3];
const plantWith = (id: number): ExpectedPlant => (tagOf(id) === undefined ? { id, name: `Plant ${id}` } : { id, name: `Plant ${id}`, tag: tagOf(id)! });

/** GET /plants: order, filters, paging through Link, and query validation. */
export function plantListingSuite(storage: StorageFactory): void {
  describe('GET /plants', () => {
    const t = useHttpServer(storage);

    it('an empty store lists as 200 [] without a Link', async () => {
      const response = await t.http.get('/plants');
      expectPlantList(response, []);
      expect(response.headers.get('link')).to.equal(null);
    });

    it('lists plants as a JSON array ordered by id ascending, whatever the creation order', async () => {
      for (const plant of [plantWith(50), plantWith(4), plantWith(900), plantWith(12)]) {
        expectOk(await t.http.post('/plants', { json: plant }), 200);
      }
      const response = await t.http.get('/plants');
      expectPlantList(response, [plantWith(4), plantWith(12), plantWith(50), plantWith(900)]);
      expect(response.headers.get('link')).to.equal(null);
    });

    it('lists 1000 plants per page by default: with 1001, the first page has 1000 and a Link to the last one', async function () {
      // 1,001 creates take 15-17 s on FerretDB (which makes each a few round trips), near the suite's 20 s.
      this.timeout(60_000);
      const all = Array.from({ length: 1001 }, (_, i) => plantWith(i + 1));
      await seed(t.server.store, all);
      const first = await t.http.get('/plants');
      expectPlantList(first, all.slice(0, 1000));
      expect(nextLink(first)).to.equal('/plants?limit=1000&after=1000');
      const last = await t.http.get(new URL(nextLink(first)!, t.server.url).href);
      expectPlantList(last, [all[1000]!]);
      expect(last.headers.get('link')).to.equal(null);
    });

    it('limit caps the page and after starts it past a cursor', async () => {
      await seed(t.server.store, [1, 2, 3, 5, 8, 13].map(plantWith));
      expect(ids(await t.http.get('/plants?limit=2'))).to.deep.equal([1, 2]);
      expect(ids(await t.http.get('/plants?after=3'))).to.deep.equal([5, 8, 13]);
      expect(ids(await t.http.get('/plants?after=4&limit=2'))).to.deep.equal([5, 8]);
      expect(ids(await t.http.get('/plants?after=0'))).to.deep.equal([1, 2, 3, 5, 8, 13]);
      expectPlantList(await t.http.get('/plants?after=13'), []);
      expect(ids(await t.http.get('/plants?limit=1000'))).to.deep.equal([1, 2, 3, 5, 8, 13]);
    });

    it('tag filters by exact tag; repeated tags mean either', async () => {
      await seed(t.server.store, [...Array.from({ length: 9 }, (_, i) => plantWith(i + 1)), { id: 10, name: 'Upper', tag: 'Fern' }]);
      expectPlantList(await t.http.get('/plants?tag=fern'), [3, 6, 9].map(plantWith));
      expectPlantList(await t.http.get('/plants?tag=fern&tag=palm'), [1, 3, 4, 6, 7, 9].map(plantWith));
      expectPlantList(await t.http.get('/plants?tag=Fern'), [{ id: 10, name: 'Upper', tag: 'Fern' }]);
      expectPlantList(await t.http.get('/plants?tag=cactus'), []);
    });

    it('the Link of a full page keeps every other query parameter, unknown ones and all tags included', async () => {
      await seed(t.server.store, Array.from({ length: 12 }, (_, i) => plantWith(i + 1)));
      const response = await t.http.get('/plants?tag=fern&tag=palm&sort=name&limit=3');
      expect(ids(response)).to.deep.equal([1, 3, 4]);
      const next = new URL(nextLink(response)!, t.server.url);
      expect(next.pathname).to.equal('/plants');
      expect(next.searchParams.getAll('tag')).to.deep.equal(['fern', 'palm']);
      expect(next.searchParams.getAll('sort')).to.deep.equal(['name']);
      expect(next.searchParams.getAll('limit')).to.deep.equal(['3']);
      expect(next.searchParams.getAll('after')).to.deep.equal(['4']);
      expect(ids(await t.http.get(next.href))).to.deep.equal([6, 7, 9]);
    });

    it('the last page has no Link, even when it is exactly full', async () => {
      await seed(t.server.store, [1, 2, 3, 4].map(plantWith));
      const first = await t.http.get('/plants?limit=2');
      expect(nextLink(first)).to.equal('/plants?limit=2&after=2');
      const second = await t.http.get(new URL(nextLink(first)!, t.server.url).href);
      expect(ids(second)).to.deep.equal([3, 4]);
      expect(second.headers.get('link')).to.equal(null);
      expect((await t.http.get('/plants?limit=4')).headers.get('link')).to.equal(null);
    });

    it('walking the Link pages visits every plant exactly once, in id order, with or without a tag filter', async () => {
      const all = Array.from({ length: 37 }, (_, i) => plantWith(1000 - i * 17));
      await seed(t.server.store, all);
      const sorted = [...all].sort((a, b) => a.id - b.id);
      const everything = await walk(t.http, t.server.url, '/plants?limit=5');
      expect(everything.plants).to.deep.equal(sorted);
      expect(everything.pages).to.equal(8);
      const tagged = await walk(t.http, t.server.url, '/plants?limit=4&tag=fern&tag=palm');
      expect(tagged.plants).to.deep.equal(sorted.filter((plant) => plant.tag !== undefined));
    });

    it('a bad query parameter is 400 40003 naming the parameter', async () => {
      const cases: [string, string][] = [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=1.5', 'limit'],
        ['limit=-1', 'limit'],
        ['limit=', 'limit'],
        ['limit=1&limit=2', 'limit'],
        ['after=-1', 'after'],
        ['after=x', 'after'],
        ['after=1&after=2', 'after'],
        ['after=9007199254740992', 'after'],
        ['tag=', 'tag'],
        [`tag=${'t'.repeat(51)}`, 'tag'],
        [Array.from({ length: 21 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
      ];
      for (const [query, parameter] of cases) expectError(await t.http.get(`/plants?${query}`), 400, 40003, parameter);
      expect(ids(await t.http.get(`/plants?${Array.from({ length: 20 }, (_, i) => `tag=t${i}`).join('&')}`))).to.deep.equal([]);
    });
  });
}
