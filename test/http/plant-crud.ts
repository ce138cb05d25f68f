import { expect } from 'chai';
import type { StorageFactory } from '../storage/storage-contract.js';
import { expectError, expectOk, expectPlant, expectPlantList, nextLink } from '../support/http-expect.js';
import { useHttpServer } from '../support/http-server.js';

const badIds = ['abc', '0', '-1', '1.5', '9007199254740992', '1e3', '0x10'];

/** POST, GET and DELETE of single plants, base paths, races and unexpected failures. */
export function plantCrudSuite(storage: StorageFactory): void {
  describe('POST, GET and DELETE /plants/{id}', () => {
    const t = useHttpServer(storage);

    it('POST /plants is 200 with the created plant and Location: /plants/{id}', async () => {
      const created = await t.http.post('/plants', { json: { id: 7, name: 'Monstera', tag: 'tropical' } });
      expectOk(created, 200);
      expectPlant(created.body, { id: 7, name: 'Monstera', tag: 'tropical' });
      expect(created.headers.get('location')).to.equal('/plants/7');
      const fetched = await t.http.get('/plants/7');
      expectOk(fetched, 200);
      expectPlant(fetched.body, { id: 7, name: 'Monstera', tag: 'tropical' });
    });

    it('a plant created without a tag has no tag key, not a null one', async () => {
      const created = await t.http.post('/plants', { json: { id: 3, name: 'Fern' } });
      expectOk(created, 200);
      expectPlant(created.body, { id: 3, name: 'Fern' });
      expect(created.text).to.not.include('tag');
      expect(created.headers.get('location')).to.equal('/plants/3');
      expectPlant((await t.http.get('/plants/3')).body, { id: 3, name: 'Fern' });
      expectPlantList(await t.http.get('/plants'), [{ id: 3, name: 'Fern' }]);
    });

    it('the Location of a created plant leads to it', async () => {
      const created = await t.http.post('/plants', { json: { id: 12, name: 'Ivy' } });
      const located = await t.http.get(t.http.root(created.headers.get('location')!));
      expectOk(located, 200);
      expectPlant(located.body, { id: 12, name: 'Ivy' });
    });

    it('GET /plants/{id} of an unknown id is 404 40401 naming the id', async () => {
      expectError(await t.http.get('/plants/42'), 404, 40401, '42');
      expectError(await t.http.get('/plants/9007199254740991'), 404, 40401);
    });

    it('DELETE /plants/{id} is 204 with an empty body; then GET and a second DELETE are 404 40401', async () => {
      await t.server.store.create({ id: 5, name: 'Aloe', tag: 'succulent' });
      await t.server.store.create({ id: 6, name: 'Cactus' });
      const deleted = await t.http.delete('/plants/5');
      expect(deleted.status).to.equal(204);
      expect(deleted.text).to.equal('');
      expectError(await t.http.get('/plants/5'), 404, 40401, '5');
      expectError(await t.http.delete('/plants/5'), 404, 40401, '5');
      expectPlantList(await t.http.get('/plants'), [{ id: 6, name: 'Cactus' }]);
      expectPlantList(await t.http.get('/plants?tag=succulent'), []);
    });

    it('a duplicate id is 409 40901 and the original plant is unchanged', async () => {
      expectOk(await t.http.post('/plants', { json: { id: 1, name: 'Fern', tag: 'shade' } }), 200);
      const duplicate = await t.http.post('/plants', { json: { id: 1, name: 'Impostor' } });
      expectError(duplicate, 409, 40901, '1');
      expect(duplicate.headers.get('location')).to.equal(null);
      expectPlant((await t.http.get('/plants/1')).body, { id: 1, name: 'Fern', tag: 'shade' });
      expectPlantList(await t.http.get('/plants'), [{ id: 1, name: 'Fern', tag: 'shade' }]);
    });

    it('a path id that is not an integer from 1 to 2^53-1 is 400 40003 naming id, for GET and DELETE', async () => {
      await t.server.store.create({ id: 1, name: 'Fern' });
      for (const id of badIds) {
        expectError(await t.http.get(`/plants/${id}`), 400, 40003, 'id');
        expectError(await t.http.delete(`/plants/${id}`), 400, 40003, 'id');
      }
      expectPlantList(await t.http.get('/plants'), [{ id: 1, name: 'Fern' }]);
    });

    it('the largest id, 9007199254740991, is served exactly', async () => {
      await t.server.store.create({ id: 9007199254740991, name: 'Big' });
      const fetched = await t.http.get('/plants/9007199254740991');
      expectOk(fetched, 200);
      expect(fetched.text).to.include('"id":9007199254740991');
      expect((await t.http.delete('/plants/9007199254740991')).status).to.equal(204);
    });
  });

  describe('a configured base path (/v1)', () => {
    const t = useHttpServer(storage, { basePath: '/v1' });

    it('serves the routes under /v1, and Location and Link carry it', async () => {
      const created = await t.http.post('/plants', { json: { id: 1, name: 'Fern' } });
      expectOk(created, 200);
      expect(created.headers.get('location')).to.equal('/v1/plants/1');
      await t.server.store.create({ id: 2, name: 'Ivy' });
      const page = await t.http.get('/plants?limit=1');
      expectPlantList(page, [{ id: 1, name: 'Fern' }]);
      expect(nextLink(page)).to.equal('/v1/plants?limit=1&after=1');
      expectPlantList(await t.http.get(t.http.root(nextLink(page)!)), [{ id: 2, name: 'Ivy' }]);
      expectPlant((await t.http.get(t.http.root('/v1/plants/2'))).body, { id: 2, name: 'Ivy' });
      expect((await t.http.delete('/plants/2')).status).to.equal(204);
    });

    it('/plants without the base path is 404 40400', async () => {
      await t.server.store.create({ id: 1, name: 'Fern' });
      expectError(await t.http.get(t.http.root('/plants')), 404, 40400);
      expectError(await t.http.get(t.http.root('/plants/1')), 404, 40400);
      expectError(await t.http.post(t.http.root('/plants'), { json: { id: 2, name: 'Ivy' } }), 404, 40400);
      expectError(await t.http.delete(t.http.root('/plants/1')), 404, 40400);
      expectPlantList(await t.http.get('/plants'), [{ id: 1, name: 'Fern' }]);
    });
  });

  describe('concurrent creation', () => {
    const t = useHttpServer(storage);

    it('200 simultaneous POSTs of one id: exactly one 200, 199 × 409 40901, one plant stored', async () => {
      // All requests are started before any is awaited; fetch opens a connection per request in flight.
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) => t.http.post('/plants', { json: { id: 77, name: `Contender ${i}` } })),
      );
      const winners = responses.filter((response) => response.status === 200);
      expect(winners).to.have.lengthOf(1);
      for (const loser of responses.filter((response) => response.status !== 200)) expectError(loser, 409, 40901);
      const listed = await t.http.get('/plants');
      expectPlantList(listed, [winners[0]!.body as { id: number; name: string }]);
    });
  });

  describe('unexpected failures', () => {
    const t = useHttpServer(storage);

    it('an unexpected storage failure is 500 50001 with nothing internal in the body, and is logged', async () => {
      await t.server.store.create({ id: 1, name: 'Fern' });
      const internal = new Error('secret-detail: connection to db-primary refused');
      t.server.breakStorage(internal);
      const responses = [
        await t.http.get('/plants', { expectServerError: true }),
        await t.http.get('/plants/1', { expectServerError: true }),
        await t.http.post('/plants', { json: { id: 2, name: 'Ivy' }, expectServerError: true }),
        await t.http.delete('/plants/1', { expectServerError: true }),
      ];
      for (const response of responses) {
        expectError(response, 500, 50001);
        expect(response.text).to.not.include('secret-detail');
        expect(response.text).to.not.include('db-primary');
      }
      expect(t.server.serverErrors).to.have.lengthOf(4);
      expect(t.server.serverErrors[0]).to.equal(internal);
      t.server.breakStorage(undefined);
      expectPlantList(await t.http.get('/plants'), [{ id: 1, name: 'Fern' }]);
    });
  });
}
