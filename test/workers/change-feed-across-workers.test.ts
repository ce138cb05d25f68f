import { expect } from 'chai';
import { sequencesOf } from '../support/disk-cursors.js';
import { eventually } from '../support/eventually.js';
import { FeedClient } from '../support/feed-client.js';
import { tempDir } from '../support/temp-dir.js';
import { killQuietly } from '../support/watched-process.js';
import { allIds, Connection, connections, countBy, CreateLoad, errorCode, GROUP_TOKEN, repeated, startGroup, type Answer } from './group-process.js';

const CREATES = 400;
const WRITERS = 16;

describe('the change feed of a group of 2 workers on disk', function () {
  this.timeout(60_000);

  it('one stream sees every create made over 16 other connections, through both workers: each once, in sequence order, a create acknowledged before another was sent comes before it, and a create through either worker alone arrives', async () => {
    using dataDir = tempDir('plant-store-workers-feed-');
    const group = await startGroup(dataDir.path, 2);
    const feed = new FeedClient(`${group.url}/plants/changes`, GROUP_TOKEN);
    const writers = connections(group.url, WRITERS);
    try {
      await feed.open();
      await new Promise((resolve) => setTimeout(resolve, 100));

      // The connections are made one after another, so the primary hands them to the workers in turn.
      const warmUps: string[] = [];
      for (const connection of writers) {
        const answer = await connection.send('GET', '/healthz', undefined, null);
        expect(answer.status).to.equal(200);
        warmUps.push(String(answer.headers['x-request-id']));
      }
      const acks = new Map<number, Answer>();
      const failures: string[] = [];
      const started = performance.now();
      let next = 1;
      await Promise.all(
        writers.map(async (connection) => {
          for (let id = next++; id <= CREATES; id = next++) {
            try {
              const answer = await connection.create(id);
              if (answer.status === 200) acks.set(id, answer);
              else failures.push(`${id}: ${answer.status} ${answer.text}`);
            } catch (error) {
              failures.push(`${id}: ${errorCode(error)}`);
            }
          }
        }),
      );
      const acknowledgedAt = performance.now();
      expect(failures, 'creates not answered 200').to.deep.equal([]);

      const events = await feed.received(CREATES, 20_000);
      const lastArrival = Math.max(...events.map((event) => event.arrivedAt));
      // Anything extra (a repeat) has a moment to arrive before the stream is read.
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Then one create through each worker alone, the other writing nothing: whichever does not
      // serve the stream, its change reaches the stream by the poll, not by a wake-up of its own.
      const workerOfWarmUp = await eventually(() => {
        const lines = new Map(group.requestLines().map((line) => [String(line.requestId), line.worker as number]));
        return warmUps.every((id) => lines.has(id)) ? warmUps.map((id) => lines.get(id)!) : undefined;
      }, { what: "the warm-up requests' lines" });
      const lone: string[] = [];
      for (const worker of [1, 2]) {
        const connection = writers[workerOfWarmUp.indexOf(worker)]!;
        const id = CREATES + worker;
        expect((await connection.create(id)).status).to.equal(200);
        const sentAt = performance.now();
        const event = await eventually(() => feed.changes.find((change) => change.data.id === id), { what: `the event of ${id}, created through worker ${worker} alone`, timeoutMs: 2000 });
        lone.push(`worker ${worker}: ${Math.round(event.arrivedAt - sentAt)} ms`);
      }
      const changes = feed.changes.filter((event) => event.data.id <= CREATES);
      // The stream's request line is written when it ends: it names the worker that served it.
      feed.close();
      const streamLine = await eventually(() => group.requestLines().find((line) => line.path === '/plants/changes' && line.status === 200), {
        what: "the stream's request line",
        context: () => group.server.stdout().slice(-2000),
      });

      const createLines = group.requestLines().filter((line) => line.method === 'POST' && line.path === '/plants' && line.status === 200);
      const byWorker = countBy(createLines, (line) => `worker ${line.worker}`);
      const lags = changes.filter((event) => acks.has(event.data.id)).map((event) => event.arrivedAt - acks.get(event.data.id)!.answeredAt);
      lags.sort((a, b) => a - b);
      console.log(
        `      stream served by worker ${streamLine.worker}; ${CREATES} creates in ${Math.round(acknowledgedAt - started)} ms (${JSON.stringify(byWorker)}); ` +
          `${changes.length} events, resets ${feed.events.filter((event) => event.type === 'feed.reset').length}, stream reconnects ${feed.opened - 1}; last event ${Math.round(lastArrival - acknowledgedAt)} ms after the last acknowledgement; ` +
          `a lone create's event after its acknowledgement: ${lone.join(', ')}; event after its acknowledgement: median ${Math.round(lags[Math.floor(lags.length / 2)]!)} ms, max ${Math.round(lags.at(-1)!)} ms`,
      );
      expect(Object.keys(byWorker).sort(), 'workers whose request lines show creates answered 200').to.deep.equal(['worker 1', 'worker 2']);
      expect(feed.opened, 'the stream was never cut').to.equal(1);
      expect(feed.events.filter((event) => event.type === 'feed.reset'), 'resets').to.deep.equal([]);
      expect(changes.every((event) => event.type === 'plant.created')).to.equal(true);

      // Each create once.
      const ids = changes.map((event) => event.data.id as number);
      expect(repeated(feed.changes.map((event) => event.data.id as number)), 'plants whose event came more than once').to.deep.equal([]);
      expect([...ids].sort((a, b) => a - b), 'plants seen on the stream').to.deep.equal(Array.from({ length: CREATES }, (_, i) => i + 1));
      for (const event of changes) expect(event.data).to.deep.equal({ id: event.data.id, name: `plant ${event.data.id}` });

      // In sequence order: the cursors' numbers increase along the stream.
      const sequenceOf = sequencesOf(dataDir.path);
      const sequences = feed.changes.map((event) => sequenceOf(event.id));
      const backwards = sequences.flatMap((sequence, i) => (i > 0 && sequence <= sequences[i - 1]! ? [`${sequences[i - 1]} then ${sequence}`] : []));
      expect(backwards, 'sequence numbers not increasing along the stream').to.deep.equal([]);

      // And that order agrees with real time: a create acknowledged before another was sent has the smaller number.
      const sequenceOfId = new Map(changes.map((event) => [event.data.id as number, sequenceOf(event.id)]));
      const byAnswer = [...acks].sort((a, b) => a[1].answeredAt - b[1].answeredAt);
      const bySending = [...acks].sort((a, b) => a[1].sentAt - b[1].sentAt);
      const inversions: string[] = [];
      let answeredIndex = 0;
      let highestAnswered: [id: number, sequence: number] = [0, 0];
      for (const [id, answer] of bySending) {
        while (answeredIndex < byAnswer.length && byAnswer[answeredIndex]![1].answeredAt < answer.sentAt) {
          const [answeredId] = byAnswer[answeredIndex++]!;
          const sequence = sequenceOfId.get(answeredId)!;
          if (sequence > highestAnswered[1]) highestAnswered = [answeredId, sequence];
        }
        if (sequenceOfId.get(id)! <= highestAnswered[1]) inversions.push(`${id} (sequence ${sequenceOfId.get(id)}) sent after ${highestAnswered[0]} (sequence ${highestAnswered[1]}) was acknowledged`);
      }
      expect(inversions, 'creates ordered before a create acknowledged before they were sent').to.deep.equal([]);
    } finally {
      feed.close();
      for (const connection of writers) connection.close();
      await group.killAll();
    }
  });
  it("a stream whose worker is killed mid-load resumes by itself on another worker (Last-Event-ID): every stored plant's event once, in sequence order, no reset", async () => {
    using dataDir = tempDir('plant-store-workers-feed-kill-');
    const group = await startGroup(dataDir.path, 2);
    const feed = new FeedClient(`${group.url}/plants/changes`, GROUP_TOKEN);
    let load: CreateLoad | undefined;
    try {
      await feed.open();
      await new Promise((resolve) => setTimeout(resolve, 100));
      load = new CreateLoad(group.url, 8, 1, { pauseMs: 5 });
      await eventually(() => load!.acknowledged.length >= 100, { what: '100 acknowledged creates', timeoutMs: 20_000 });
      // Nothing tells which worker holds the stream: kill one, and if the stream did not drop, the other.
      const killed: number[] = [];
      const killedAt: number[] = [];
      for (const pid of group.workerPids()) {
        if (feed.opened > 1) break;
        const before = load.acknowledged.length;
        killQuietly(pid, 'SIGKILL');
        killedAt.push(before);
        killed.push(pid);
        await eventually(() => group.lines().some((line) => typeof line.msg === 'string' && line.msg.endsWith(`listening, in place of ${pid}`)), { what: `a worker in place of ${pid}`, context: () => group.server.output().slice(-2000) });
        // The client waits the stream's retry (2 s) before it reconnects.
        await eventually(() => feed.opened > 1 || undefined, { what: 'the stream to resume', timeoutMs: 3000 }).catch(() => undefined);
        await eventually(() => load!.acknowledged.length >= before + 50, { what: '50 more acknowledged creates', timeoutMs: 20_000 });
      }
      await load.stop();
      expect(feed.opened, 'the stream dropped with a killed worker and resumed').to.equal(2);
      // The group's error lines say why a create was refused (a 503's cause is logged with it).
      const errors = () => group.lines().filter((line) => typeof line.level === 'number' && line.level >= 50);
      expect(load.wrongAnswers, `answers other than 200 with the plant sent; the group's error lines: ${JSON.stringify(errors())}`).to.deep.equal([]);
      const reader = new Connection(group.url);
      const stored = await allIds(reader);
      reader.close();
      await feed.received(stored.length, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 500)); // repeats would have arrived
      const changes = feed.changes;
      const ids = changes.map((event) => event.data.id as number);
      const sequenceOf = sequencesOf(dataDir.path);
      const sequences = changes.map((event) => sequenceOf(event.id));
      const backwards = sequences.flatMap((sequence, i) => (i > 0 && sequence <= sequences[i - 1]! ? [`${sequences[i - 1]} then ${sequence}`] : []));
      console.log(
        `      killed ${killed.length} worker(s) to drop the stream; ${load.acknowledged.length} creates acknowledged, ${load.connectionErrors.length} connection errors, ${stored.length} stored; ` +
          `${changes.length} events, ${feed.events.length - changes.length} resets, ${repeated(ids).length} repeated, ${backwards.length} out of order`,
      );
      expect(feed.events.filter((event) => event.type === 'feed.reset'), 'resets').to.deep.equal([]);
      expect(repeated(ids), 'plants whose event came more than once').to.deep.equal([]);
      expect(backwards, 'sequence numbers not increasing along the stream').to.deep.equal([]);
      expect([...ids].sort((a, b) => a - b), "the stream's plants: those stored").to.deep.equal([...stored].sort((a, b) => a - b));
      const onStream = new Set(ids);
      const lost = load.acknowledged.flatMap((id, index) => (onStream.has(id) ? [] : [`${id} (acknowledged #${index + 1}; ${stored.includes(id) ? 'stored' : 'not stored'})`]));
      expect(lost, `acknowledged creates missing from the stream (acknowledged before each kill: ${killedAt.join(', ')})`).to.deep.equal([]);
    } finally {
      feed.close();
      await load?.stop();
      await group.killAll();
    }
  });
});
