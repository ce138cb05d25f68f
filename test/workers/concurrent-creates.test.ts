import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { connections, countBy, errorCode, repeated, startGroup, type Answer, type Group, type LogLine } from './group-process.js';

describe('a group of 2 workers on disk, creating concurrently over many connections', function () {
  this.timeout(60_000);
  let dataDir: TempDir;
  let group: Group | undefined;
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    dataDir = tempDir('plant-store-workers-race-');
    receiver = await WebhookReceiver.start();
    group = await startGroup(dataDir.path, 2, {
      PLANT_STORE_WEBHOOK_URLS: receiver.url,
      PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  afterEach(async () => {
    await group?.killAll();
    group = undefined;
    await receiver.close();
    dataDir.remove();
  });

  it('200 creates of one id at once, each on its own connection, through both workers: exactly one 200 and 199 × 409, and its plant.created delivered once', async () => {
    const racers = connections(group!.url, 200);
    try {
      // Every connection is made (and handed to a worker) first, so the creates go at once.
      const warm = await Promise.all(racers.map((connection) => connection.send('GET', '/healthz', undefined, null)));
      expect(warm.every((answer) => answer.status === 200)).to.equal(true);
      const answers = await Promise.all(racers.map((connection, i) => connection.create(4242, `racer ${i}`).catch((error: unknown) => errorCode(error))));
      const failed = answers.filter((answer): answer is string => typeof answer === 'string');
      expect(failed, 'connection errors').to.deep.equal([]);
      const answered = answers as Answer[];
      const won = answered.filter((answer) => answer.status === 200);
      const refused = answered.filter((answer) => answer.status === 409);
      const other = answered.filter((answer) => answer.status !== 200 && answer.status !== 409);
      const creates = await createLines(group!, 200);
      const byWorker = countBy(creates, (line) => `worker ${line.worker} ${line.status}`);
      const spread = answered.map((answer) => answer.answeredAt - answer.sentAt);
      console.log(`      ${won.length} × 200, ${refused.length} × 409, ${other.length} other; request lines: ${JSON.stringify(byWorker)}; slowest answer ${Math.round(Math.max(...spread))} ms`);
      expect(other.map((answer) => `${answer.status} ${answer.text}`), 'answers other than 200 or 409').to.deep.equal([]);
      expect(won, 'creates answered 200').to.have.length(1);
      expect(refused, 'creates answered 409').to.have.length(199);
      for (const answer of refused) expect(answer.body).to.deep.equal({ error: 40901, message: 'a plant with id 4242 already exists' });
      const winner = won[0]!.body as { id: number; name: string };
      expect(winner.id).to.equal(4242);
      const stored = await racers[0]!.send('GET', '/plants/4242');
      expect(stored.body, 'the stored plant is the one answered 200').to.deep.equal(winner);

      // Both workers took part in the race.
      expect(creates, 'request lines of the creates').to.have.length(200);
      const workers = new Set(creates.map((line) => line.worker));
      expect([...workers].sort(), 'workers that served creates').to.deep.equal([1, 2]);

      await eventually(() => receiver.createdIds().includes(4242), { what: 'plant.created of 4242', timeoutMs: 15_000 });
      await new Promise((resolve) => setTimeout(resolve, 1500)); // a repeat would have arrived by now
      const created = receiver.received.filter((hook) => hook.type === 'plant.created');
      const duplicates = repeated(created.map((hook) => hook.id));
      console.log(`      webhooks: ${created.length} plant.created received, duplicates by webhook-id: ${duplicates.length}`);
      expect(created.map((hook) => hook.body), 'the webhooks received').to.deep.equal([winner]);
      expect(created.every((hook) => hook.verified)).to.equal(true);
    } finally {
      for (const connection of racers) connection.close();
    }
  });

  it('400 distinct creates over 40 connections through both workers: every plant.created delivered exactly once', async () => {
    const writers = connections(group!.url, 40);
    const ids = Array.from({ length: 400 }, (_, i) => 1 + i);
    try {
      // The connections are made one after another, so the primary hands them to the workers in turn.
      for (const connection of writers) expect((await connection.send('GET', '/healthz', undefined, null)).status).to.equal(200);
      const started = performance.now();
      const answers = await Promise.all(
        writers.map(async (connection, w) => {
          const mine: (Answer | string)[] = [];
          for (let id = 1 + w; id <= 400; id += writers.length) mine.push(await connection.create(id).catch((error: unknown) => errorCode(error)));
          return mine;
        }),
      );
      const acknowledgedAt = performance.now();
      const flat = answers.flat();
      expect(flat.filter((answer) => typeof answer === 'string'), 'connection errors').to.deep.equal([]);
      expect(flat.filter((answer) => (answer as Answer).status !== 200).map((answer) => (answer as Answer).text), 'creates not answered 200').to.deep.equal([]);
      const creates = await createLines(group!, 400);
      const byWorker = countBy(creates, (line) => `worker ${line.worker}`);
      expect(Object.keys(byWorker).sort(), 'workers that served creates').to.deep.equal(['worker 1', 'worker 2']);

      await eventually(() => new Set(receiver.createdIds()).size >= ids.length, {
        what: 'every plant.created',
        context: () => `${new Set(receiver.createdIds()).size} of ${ids.length} plants delivered`,
        timeoutMs: 30_000,
      });
      const deliveredAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 2000)); // repeats would have arrived by now
      const created = receiver.received.filter((hook) => hook.type === 'plant.created');
      const duplicates = repeated(created.map((hook) => hook.id));
      const duplicatePlants = repeated(created.map((hook) => (hook.body as { id: number }).id));
      console.log(
        `      400 creates acknowledged in ${Math.round(acknowledgedAt - started)} ms (request lines ${JSON.stringify(byWorker)}); all delivered ${Math.round(deliveredAt - acknowledgedAt)} ms after the last acknowledgement; ` +
          `${created.length} plant.created received; duplicates by webhook-id: ${duplicates.length}${duplicates.length > 0 ? ` (${duplicates.slice(0, 20).map(([id, times]) => `${id}×${times}`).join(', ')})` : ''}; plants delivered more than once: ${duplicatePlants.length}`,
      );
      expect(created.map((hook) => (hook.body as { id: number }).id).sort((a, b) => a - b), 'plants delivered, each once').to.deep.equal(ids);
      expect(duplicates, 'webhook-ids received more than once').to.deep.equal([]);
      expect(created.every((hook) => hook.verified)).to.equal(true);
    } finally {
      for (const connection of writers) connection.close();
    }
  });
});

/** The request lines of POST /plants, once `count` have been read (they reach this process through a pipe, after the answers). */
async function createLines(group: Group, count: number): Promise<LogLine[]> {
  const lines = () => group.requestLines().filter((line) => line.method === 'POST' && line.path === '/plants');
  await eventually(() => lines().length >= count, { what: `${count} request lines of POST /plants`, context: () => `${lines().length} read`, timeoutMs: 5000 });
  return lines();
}
