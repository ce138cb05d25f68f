import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startCli, type CliServer } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';
import { withDatabase } from '../support/mongo-uri.js';
import { HttpClient } from '../support/http-client.js';
import { createUntilKilled } from '../support/kill-mid-stream.js';
import { tempDir } from '../support/temp-dir.js';
import { dropDatabase, requireDatabase } from '../support/test-database.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

const token = 'webhook-crash-token-0123456789abcdef';

/** Creates until `count` are acknowledged, then SIGKILLs the server mid-stream; returns the acknowledged ids. */
async function createThenKill(server: CliServer, count: number): Promise<number[]> {
  const { acknowledged } = await createUntilKilled(await HttpClient.connect(server.url, token), server, count);
  return acknowledged;
}

function crashTest(name: string, storageEnv: (context: Mocha.Context) => Promise<{ env: Record<string, string>; cleanUp: () => Promise<void> }>) {
  describe(`webhooks survive a SIGKILL on ${name}`, function () {
    this.timeout(90_000);
    const started: CliServer[] = [];
    let receiver: WebhookReceiver | undefined;
    let cleanUp = async () => {};
    afterEach(async () => {
      await Promise.all(started.splice(0).map((server) => server.stop('SIGKILL')));
      await receiver?.close();
      await cleanUp();
    });

    it('receiver down, creates acknowledged, server killed; server and receiver restarted: every acknowledged create is delivered', async function () {
      const storage = await storageEnv(this);
      cleanUp = storage.cleanUp;
      const port = await freePort(); // nobody listens there yet: the receiver is down
      const env = {
        ...storage.env,
        PLANT_STORE_TOKENS: token,
        PLANT_STORE_WEBHOOK_URLS: `http://127.0.0.1:${port}/hook`,
        PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
        // Retries for a minute: none may fail before the receiver is back.
        PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: Array(120).fill('0.5s').join(','),
        PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
        // Claims left by the killed server lapse after the attempt, five storage calls and a
        // second (leaseMsFor): 12 s on MongoDB with its storage timeout at 2 s below (27 s
        // at the default 5 s); disk voids them at once.
        PLANT_STORE_WEBHOOK_TIMEOUT_MS: '1000',
      };
      const first = await startCli(env);
      started.push(first);
      const acknowledged = await createThenKill(first, 200);

      receiver = await WebhookReceiver.start(TEST_WEBHOOK_SECRET, port);
      const second = await startCli(env);
      started.push(second);
      const wanted = new Set(acknowledged);
      await eventually(() => acknowledged.every((id) => receiver!.createdIds().includes(id)), {
        context: () => `missing: ${[...wanted].filter((id) => !receiver!.createdIds().includes(id)).slice(0, 20).join(',')}`,
        timeoutMs: 60_000,
      });
      expect(receiver.received.every((hook) => hook.verified)).to.equal(true);
    });
  });
}

crashTest('disk', async () => {
  const dataDir = tempDir('plant-store-webhook-crash-');
  return { env: { PLANT_STORE_DATA_DIR: dataDir.path }, cleanUp: async () => dataDir.remove() };
});

crashTest('MongoDB', async (context) => {
  const database = await requireDatabase(context);
  const name = `plant_store_webhook_crash_${randomBytes(4).toString('hex')}`;
  return { env: { MONGODB_URI: withDatabase(database.uri, name), PLANT_STORE_STORAGE_TIMEOUT_MS: '2000' }, cleanUp: () => dropDatabase(database.uri, name) };
});
