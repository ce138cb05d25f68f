import { expect } from 'chai';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import type { PlantRepository } from '../../core/index.js';
import { memoryStorage, startHttpServer } from '../support/http-server.js';
import { changeFeedSuite } from './change-feed-suite.js';

changeFeedSuite('memory', memoryStorage, true);

describe('change feed on a storage without a change log', () => {
  it('GET /plants/changes is no route there (404 40400 naming why), not a bad plant id', async () => {
    // A repository of one's own, as the library allows, that keeps no log.
    const server = await startHttpServer(async () => {
      const inner = new MemoryPlantRepository();
      const repository: PlantRepository = {
        page: (request) => inner.page(request),
        findById: (id) => inner.findById(id),
        add: (plant) => inner.add(plant),
        remove: (id) => inner.remove(id),
        ping: () => inner.ping(),
      };
      return { repository, close: async () => {} };
    });
    try {
      const answer = await fetch(`${server.url}/plants/changes`, { headers: { Authorization: `Bearer ${server.token}` } });
      expect(answer.status).to.equal(404);
      expect(await answer.json()).to.deep.equal({ error: 40400, message: 'no route for /plants/changes: this storage keeps no change log' });
      expect(server.openapi['paths']).not.to.have.property('/plants/changes');
      expect((await server.http.get('/plants/7')).status, 'plant ids still answer').to.equal(404);
    } finally {
      await server.close();
    }
  });
});
