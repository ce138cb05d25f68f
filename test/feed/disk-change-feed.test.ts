import { expect } from 'chai';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import { diskStorage } from '../support/disk-storage.js';
import { FeedClient } from '../support/feed-client.js';
import { freePort } from '../support/free-port.js';
import { randomToken, startHttpServer } from '../support/http-server.js';
import { tempDir } from '../support/temp-dir.js';
import { changeFeedSuite } from './change-feed-suite.js';

changeFeedSuite('disk', diskStorage(), true);

describe('change feed on disk storage across a restart', function () {
  this.timeout(60_000);

  it('a stream outlives a restart only by the client resuming: the EventSource reconnects by itself and gets exactly the later changes', async () => {
    const directory = tempDir('plant-store-feed-');
    const token = randomToken();
    const port = await freePort();
    // The same directory and port each time, as an operator's restart would have.
    const start = () =>
      startHttpServer(async () => {
        const repository = DiskPlantRepository.open(directory.path);
        return { repository, close: () => repository.close() };
      }, { tokens: [token], env: { PORT: String(port) } });
    let server = await start();
    const feed = new FeedClient(`${server.url}/plants/changes`, token);
    try {
      await feed.open();
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (let id = 1; id <= 3; id++) await server.http.create(id, `before ${id}`);
      await feed.received(3);
      await server.close();
      server = await start();
      // Changes made before the client is back: its Last-Event-ID finds them in the log on disk.
      for (let id = 4; id <= 6; id++) await server.http.create(id, `after ${id}`);
      await server.http.delete('/plants/2');
      const events = await feed.received(7, 20_000);
      expect(feed.opened, 'connections: the first and the resumed one').to.be.at.least(2);
      expect(events.map((event) => `${event.type} ${event.data.id}`)).to.deep.equal([
        'plant.created 1',
        'plant.created 2',
        'plant.created 3',
        'plant.created 4',
        'plant.created 5',
        'plant.created 6',
        'plant.deleted 2',
      ]);
      expect(feed.events.filter((event) => event.type === 'feed.reset'), 'the cursor was known after the restart').to.deep.equal([]);
    } finally {
      feed.close();
      await server.close();
      directory.remove();
    }
  });
});
