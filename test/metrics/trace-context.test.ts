import { expect } from 'chai';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { memoryStorage, startHttpServer, type HttpServer } from '../support/http-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { mongoStorageFactory, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';

const traceIds = ['4bf92f3577b34da6a3ce929d0e0e4736', '0af7651916cd43dd8448eb211c80319c'];
const traceparent = (traceId: string) => ({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` });

type Line = Record<string, unknown>;
const linesOf = (server: HttpServer): Line[] =>
  server
    .log()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
const webhookEnv = (url: string, schedule = '5s') => ({
  PLANT_STORE_WEBHOOK_URLS: url,
  PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
  PLANT_STORE_WEBHOOK_EVENTS: 'plant.created,plant.deleted',
  PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: schedule,
});

describe('traceparent on the request line', () => {
  let server: HttpServer;
  beforeEach(async () => {
    server = await startHttpServer();
  });
  afterEach(() => server.close());

  it('puts a well-formed trace id on the request line as traceId; a malformed one is ignored, the answer unchanged', async () => {
    await server.http.get('/plants', { headers: traceparent(traceIds[0]!) });
    const malformed = await server.http.get('/plants', { headers: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` } });
    const garbage = await server.http.get('/plants', { headers: { traceparent: 'garbage \u00ff' } });
    expect([malformed.status, garbage.status]).to.deep.equal([200, 200]);
    const requests = linesOf(server).filter((line) => line['msg'] === 'request' && line['route'] === '/plants');
    expect(requests.map((line) => line['traceId'])).to.deep.equal([traceIds[0], undefined, undefined]);
  });
});

/** Webhooks of changes made with a traceparent carry its trace id on every attempt line, on each storage. */
function webhookAttemptsCarryTheTraceId(name: string, storage: () => StorageFactory): void {
  describe(`traceparent on the webhook attempt lines (${name} storage)`, function () {
    this.timeout(30_000);
    let receiver: WebhookReceiver;
    let server: HttpServer;
    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
      server = await startHttpServer(storage(), { env: webhookEnv(receiver.url) });
    });
    afterEach(async () => {
      await server.close();
      await receiver.close();
    });

    it('a create and a delete, each traced: their deliveries log their own trace id; an untraced create beside them logs none', async () => {
      const { http } = server;
      await Promise.all([http.create(1, 'traced', { headers: traceparent(traceIds[0]!) }), http.create(2, 'untraced')]);
      // The creations' outcomes written first: on FerretDB an outcome write racing the delete
      // of the same plant can undo the delete (its updates are not atomic; docs/storage.md).
      await eventually(async () => (await server.store.deliveryState()).pending === 0);
      await http.delete('/plants/1', { headers: traceparent(traceIds[1]!) });
      // At least once: a change may be delivered twice (another claim after a lapsed lease), each time with its trace id.
      const byChange = () => Object.fromEntries(linesOf(server).filter((line) => line['msg'] === 'webhook delivered').map((line) => [`${line['event']} ${line['plantId']}`, line['traceId']]));
      await eventually(() => Object.keys(byChange()).length === 3, { what: 'the three changes delivered', context: () => server.log() });
      expect(byChange()).to.deep.equal({ 'plant.created 1': traceIds[0], 'plant.created 2': undefined, 'plant.deleted 1': traceIds[1] });
    });
  });
}

webhookAttemptsCarryTheTraceId('memory', () => memoryStorage);

let diskDir: TempDir | undefined;
const diskStorage: StorageFactory = async () => {
  const repository = DiskPlantRepository.open(diskDir!.path);
  return { repository, close: () => repository.close() };
};
describe('on disk', () => {
  beforeEach(() => (diskDir = tempDir('plant-store-trace-')));
  afterEach(() => diskDir?.remove());
  webhookAttemptsCarryTheTraceId('disk', () => diskStorage);

  it('the trace id is kept with the pending delivery: the attempt after a restart logs it too', async function () {
    this.timeout(30_000);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    // Nothing listens yet: the first attempt is refused, and retried after the restart.
    const first = await startHttpServer(diskStorage, { env: webhookEnv(url, '1s') });
    try {
      await first.http.create(1, 'traced', { headers: traceparent(traceIds[0]!) });
      await eventually(() => linesOf(first).some((line) => line['msg'] === 'webhook attempt failed; will retry'), { context: () => first.log() });
      expect(linesOf(first).find((line) => line['msg'] === 'webhook attempt failed; will retry')!['traceId']).to.equal(traceIds[0]);
    } finally {
      await first.close();
    }
    const receiver = await WebhookReceiver.start(TEST_WEBHOOK_SECRET, port);
    const second = await startHttpServer(diskStorage, { env: webhookEnv(url, '1s') });
    try {
      await eventually(() => linesOf(second).some((line) => line['msg'] === 'webhook delivered'), { timeoutMs: 15_000, context: () => second.log() });
      const delivered = linesOf(second).find((line) => line['msg'] === 'webhook delivered')!;
      expect({ plantId: delivered['plantId'], attempt: delivered['attempt'], traceId: delivered['traceId'] }).to.deep.equal({ plantId: 1, attempt: 2, traceId: traceIds[0] });
    } finally {
      await second.close();
      await receiver.close();
    }
  });
});

describe('on MongoDB', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });
  webhookAttemptsCarryTheTraceId('mongo', () => mongoStorageFactory(() => database.uri));
});
