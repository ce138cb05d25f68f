import { expect } from 'chai';
import { HttpClient } from '../support/http-client.js';
import { memoryStorage, randomToken, startHttpServer, type HttpServer } from '../support/http-server.js';
import { eventually } from '../support/eventually.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import { diskStorage } from '../support/disk-storage.js';

// Two sandboxes holding the same ids, and the default one beside them: every route answers
// each token from its own sandbox only, and nothing it answers (status, message, Link,
// delivery state) tells of another's plants.
export function sandboxIsolationSuite(storageName: string, storage: StorageFactory): void {
  describe(`sandboxes over HTTP on ${storageName} storage: complete isolation`, function () {
    this.timeout(30_000);
    let server: HttpServer;
    let receiver: WebhookReceiver;
    let a: HttpClient;
    let b: HttpClient;
    let other: HttpClient;
    const tokens = { a: randomToken(), b: randomToken(), default: randomToken() };
    const client = (token: string) => server.http.withToken(token);

    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
      server = await startHttpServer(storage, {
        tokens: [`${tokens.a} sandbox=garden-a`, `${tokens.b} plants:read plants:write sandbox=garden-b`, tokens.default],
        env: {
          PLANT_STORE_WEBHOOK_URLS: receiver.url,
          PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
          PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
          PLANT_STORE_WEBHOOK_EVENTS: 'plant.created,plant.deleted',
        },
      });
      [a, b, other] = [client(tokens.a), client(tokens.b), client(tokens.default)];
    });
    afterEach(async () => {
      await server?.close();
      await receiver?.close();
    });

    it('the same ids in two sandboxes: create, get, 409, list and delete each see only their own', async () => {
      for (const id of [1, 2, 3]) {
        expect((await a.create(id, `a${id}`)).status).to.equal(200);
        expect((await b.create(id, `b${id}`)).status).to.equal(200);
      }
      expect((await a.create(1, 'again')).status, 'a conflict within the sandbox').to.equal(409);
      expect((await a.get('/plants/2')).body).to.deep.equal({ id: 2, name: 'a2' });
      expect((await b.get('/plants/2')).body).to.deep.equal({ id: 2, name: 'b2' });
      expect((await other.get('/plants')).body, 'the default sandbox holds none of them').to.deep.equal([]);
      expect((await b.create(4, 'b only')).status).to.equal(200);
      // a's 404 for b's id is word for word a 404 for an id nobody has.
      const missing = await a.get('/plants/4');
      const never = await a.get('/plants/99');
      expect([missing.status, missing.body.error, missing.body.message]).to.deep.equal([404, 40401, 'no plant with id 4']);
      expect([never.status, never.body.error]).to.deep.equal([404, 40401]);
      expect((await a.create(4, 'a four')).status, 'an id taken only elsewhere is free here').to.equal(200);
      expect((await a.delete('/plants/1')).status).to.equal(204);
      expect((await a.delete('/plants/1')).status).to.equal(404);
      expect((await b.get('/plants/1')).body).to.deep.equal({ id: 1, name: 'b1' });
      expect(await a.allIds()).to.deep.equal([2, 3, 4]);
      expect(await b.allIds()).to.deep.equal([1, 2, 3, 4]);
    });

    it('pages and their Link walk one sandbox; tag filters too', async () => {
      for (let id = 1; id <= 9; id++) {
        await (id % 3 === 0 ? b : a).post('/plants', { json: { id, name: `p${id}`, tag: id % 2 === 0 ? 'even' : 'odd' } });
        await other.create(id * 10);
      }
      const first = await a.get('/plants?limit=2&tag=odd');
      expect(first.body.map((plant: { id: number }) => plant.id)).to.deep.equal([1, 5]);
      const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')![1]!;
      expect(next).to.equal('/plants?limit=2&tag=odd&after=5');
      expect((await a.get(next)).body.map((plant: { id: number }) => plant.id)).to.deep.equal([7]);
      expect((await b.get('/plants?limit=10')).body.map((plant: { id: number }) => plant.id)).to.deep.equal([3, 6, 9]);
      expect((await b.get(next)).body, "b following a's link sees its own plants after 5").to.deep.equal([{ id: 9, name: 'p9', tag: 'odd' }]);
      expect((await other.get('/plants?limit=3')).body.map((plant: { id: number }) => plant.id)).to.deep.equal([10, 20, 30]);
    });

    it('webhooks carry the sandbox in plant-store-sandbox; the delivery state shows the caller\'s sandbox only; a sandbox may not retry', async () => {
      await a.create(1, 'a1');
      await b.create(1, 'b1');
      // The creations' outcomes written first: on FerretDB an outcome write racing the delete
      // of the same plant can undo the delete (its updates are not atomic; docs/storage.md).
      await eventually(async () => (await server.store.deliveryState()).pending === 0);
      await b.delete('/plants/1');
      await other.create(1, 'd1');
      await eventually(() => receiver.received.length === 4, { context: () => JSON.stringify(receiver.received.map((hook) => hook.headers)) });
      const seen = receiver.received.map((hook) => `${hook.headers['plant-store-sandbox']} ${hook.type} ${JSON.stringify(hook.body)}`).sort();
      expect(seen).to.deep.equal([
        'default plant.created {"id":1,"name":"d1"}',
        'garden-a plant.created {"id":1,"name":"a1"}',
        'garden-b plant.created {"id":1,"name":"b1"}',
        'garden-b plant.deleted {"id":1}',
      ]);
      receiver.answerWith({ status: 500 });
      await a.create(2, 'a2');
      await eventually(() => receiver.received.length === 5);
      const stateOf = async (c: HttpClient) => {
        const { body } = await c.get('/webhooks/deliveries');
        return [body.pending, body.failed.length];
      };
      expect(await stateOf(a), "a's creation waits for its retry").to.deep.equal([1, 0]);
      expect(await stateOf(b)).to.deep.equal([0, 0]);
      expect(await stateOf(other)).to.deep.equal([0, 0]);
      const retry = await a.post('/webhooks/deliveries/retry');
      expect([retry.status, retry.body.error]).to.deep.equal([403, 40301]);
      expect((await other.post('/webhooks/deliveries/retry')).status, 'the default sandbox\'s token (operators) may').to.equal(200);
    });
  });
}

sandboxIsolationSuite('memory', memoryStorage);
sandboxIsolationSuite('disk', diskStorage('plant-store-sandbox-http-'));
