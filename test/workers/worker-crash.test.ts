import { expect } from 'chai';
import { freePort } from '../support/free-port.js';
import { eventually } from '../support/eventually.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { allIds, Connection, connections, CreateLoad, isAlive, processState, repeated, startGroup, stopLoads, type Group } from './group-process.js';

const WORKERS = 2;
const WRITERS = 12;

/** The primary's line on a worker's death: started again at once, or after a second when it ran less than one (docs/workers.md). */
const deathOf = (pid: number) => new RegExp(`^worker ${pid} stopped \\(signal SIGKILL\\); starting another(?: in \\d+ ms)?$`);

/** Plants each held-delivery test creates. */
const PLANTS = 40;

/** The receiver's next `count` answers (more than the first rounds' worth) wait until the function returned is called. */
function holdAnswers(receiver: WebhookReceiver, count: number): () => void {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  receiver.answerWith(...Array.from({ length: count }, () => ({ until: gate })));
  return release;
}

/** PLANTS creates over 8 connections (both workers), each answered 200; each plant's request id. */
async function createPlants(group: Group): Promise<Map<number, string>> {
  const writers = connections(group.url, 8);
  const requestIdOf = new Map<number, string>();
  try {
    await Promise.all(
      writers.map(async (connection, w) => {
        for (let id = 1 + w; id <= PLANTS; id += writers.length) {
          const answer = await connection.create(id);
          expect(answer.status, answer.text).to.equal(200);
          requestIdOf.set(id, String(answer.headers['x-request-id']));
        }
      }),
    );
  } finally {
    for (const connection of writers) connection.close();
  }
  return requestIdOf;
}

/** Each worker sends a round of what was due when it looked and waits for its answers: waits until no more arrive. */
async function firstRoundsHeld(receiver: WebhookReceiver): Promise<void> {
  let seen = -1;
  await eventually(async () => {
    const now = receiver.received.length;
    if (now > 0 && now === seen) return true;
    seen = now;
    await new Promise((resolve) => setTimeout(resolve, 400));
    return false;
  }, { what: 'the first rounds of deliveries under way (held by the receiver)', context: () => `${receiver.received.length} arrived` });
}

describe('a group of 2 workers on disk, killed with SIGKILL mid-load', function () {
  this.timeout(90_000);
  let dataDir: TempDir;
  const groups: Group[] = [];
  let receiver: WebhookReceiver | undefined;
  beforeEach(() => {
    dataDir = tempDir('plant-store-workers-crash-');
  });
  afterEach(async () => {
    await stopLoads();
    for (const group of groups.splice(0)) await group.killAll();
    await receiver?.close();
    receiver = undefined;
    dataDir.remove();
  });

  it('one worker killed: its in-flight creates fail on their connections, every acknowledged create stays, the primary logs the restart and a new worker serves new connections; then the whole group killed with the webhook receiver down and restarted with it up: every acknowledged create is there and delivered', async () => {
    const hookPort = await freePort(); // nobody listens there until the receiver starts: it is down
    const env = {
      PLANT_STORE_WEBHOOK_URLS: `http://127.0.0.1:${hookPort}/hook`,
      PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
      // Retries for a minute: none may fail for good before the receiver is up.
      PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: Array(60).fill('1s').join(','),
      PLANT_STORE_WEBHOOK_TIMEOUT_MS: '1000',
    };
    const started = performance.now();
    const group = await startGroup(dataDir.path, WORKERS, env);
    groups.push(group);
    const listeningAt = performance.now();
    const [victim, survivor] = group.workerPids() as [number, number];

    // Phase 1: one worker SIGKILLed while twelve connections create, once it has run for more
    // than a second (one that ran less is started again only after a second, docs/workers.md).
    const load = new CreateLoad(group.url, WRITERS, 1);
    await eventually(() => load.acknowledged.length >= 300 && performance.now() - listeningAt >= 1500, { what: '300 acknowledged creates', context: () => `${load.acknowledged.length}; errors ${load.connectionErrors.length}; wrong ${load.wrongAnswers.slice(0, 5).join(' | ')}`, timeoutMs: 30_000 });
    const killedAt = performance.now();
    const acknowledgedBeforeKill = load.acknowledged.length;
    process.kill(victim, 'SIGKILL');

    const restartLine = await eventually(() => group.lines().find((line) => line.msg === `worker ${victim} stopped (signal SIGKILL); starting another`), {
      what: `the primary's line on worker ${victim}'s death`,
      context: () => group.server.output().slice(-3000),
    });
    expect(restartLine.level, 'logged as an error').to.equal(50);
    const replacementLine = await eventually(() => group.lines().find((line) => typeof line.msg === 'string' && line.msg.endsWith(`listening, in place of ${victim}`)), {
      what: `a worker listening in place of ${victim}`,
      context: () => group.server.output().slice(-3000),
    });
    const replacedAt = performance.now();
    const replacement = Number(/^worker (\d+) listening/.exec(replacementLine.msg!)![1]);
    expect(replacementLine.pid, 'the line names the new worker').to.equal(replacement);
    await eventually(() => !isAlive(victim), { what: `worker ${victim} gone` });
    const children = await eventually(() => {
      const pids = group.workerPids();
      return pids.length === WORKERS && pids.includes(replacement) ? pids : undefined;
    }, { what: `${WORKERS} live workers, the new one among them`, context: () => `children: ${group.workerPids().join(',')}` });
    expect(children.sort()).to.deep.equal([survivor, replacement].sort());
    expect(children).to.not.include(victim);

    // New connections are served, by the new worker among others (the primary hands connections to each in turn).
    const fresh = connections(group.url, 8);
    try {
      const answers = await Promise.all(fresh.map((connection) => connection.send('GET', '/plants/1')));
      expect(answers.map((answer) => answer.status), 'GET /plants/1 on new connections').to.deep.equal(Array(8).fill(200));
    } finally {
      for (const connection of fresh) connection.close();
    }
    // The request line is written once the answer is decided: give the last ones a moment.
    await eventually(
      () => group.requestLines().filter((line) => line.worker === replacementLine.worker && line.method === 'GET' && line.path === '/plants/1' && line.status === 200).length || undefined,
      { what: `GET /plants/1 lines of the new worker (cluster id ${replacementLine.worker})`, context: () => group.server.stdout().slice(-3000) },
    );

    // The load goes on past the restart, then stops; every acknowledged create is found.
    await eventually(() => load.acknowledged.length >= acknowledgedBeforeKill + 300, { what: '300 more acknowledged creates', timeoutMs: 30_000 });
    await load.stop();
    const servedByNew = group.requestLines().filter((line) => line.worker === replacementLine.worker && line.method === 'GET' && line.path === '/plants/1').length;
    const phase1Errors = load.connectionErrors.length;
    console.log(
      `      phase 1: ${load.acknowledged.length} creates acknowledged (ids sent 1-${load.lastId}), ${phase1Errors} connection errors ` +
        `(${[...new Set(load.connectionErrors.map((error) => error.code))].join(', ')}), ${load.wrongAnswers.length} wrong answers; ` +
        `worker ${victim} killed after ${Math.round(killedAt - started)} ms, logged "${restartLine.msg}", replaced by ${replacement} ${Math.round(replacedAt - killedAt)} ms later; ${servedByNew} of the 8 new connections served by it`,
    );
    expect(load.wrongAnswers, 'answers other than 200 with the plant sent').to.deep.equal([]);
    expect(phase1Errors, 'in-flight creates on the killed worker failed on their connections').to.be.greaterThan(0);
    const reader = new Connection(group.url);
    try {
      const stored = new Set(await allIds(reader));
      expect(load.acknowledged.filter((id) => !stored.has(id)), 'acknowledged creates missing after the worker died').to.deep.equal([]);
      for (const id of load.acknowledged.slice(-5)) {
        const got = await reader.send('GET', `/plants/${id}`);
        expect(got.status).to.equal(200);
        expect(got.body).to.deep.equal({ id, name: `plant ${id}` });
      }
    } finally {
      reader.close();
    }

    // Phase 2: the whole group SIGKILLed mid-load, the receiver still down.
    const load2 = new CreateLoad(group.url, WRITERS, load.lastId + 1, { stopOnError: true });
    await eventually(() => load2.acknowledged.length >= 300, { what: '300 acknowledged creates (phase 2)', timeoutMs: 30_000 });
    const workersAtKill = group.workerPids();
    await group.killAll();
    await load2.stop();
    expect(load2.wrongAnswers, 'answers other than 200 with the plant sent (phase 2)').to.deep.equal([]);
    expect(workersAtKill.filter(isAlive), 'workers left running after the group was killed').to.deep.equal([]);
    const acknowledged = [...load.acknowledged, ...load2.acknowledged];

    receiver = await WebhookReceiver.start(TEST_WEBHOOK_SECRET, hookPort);
    // Restarted at once, as a supervisor would. The killed workers were the primary's
    // children: orphans now, reaped by PID 1 whenever it gets to it (here about 1.2-1.5 s).
    const restartedAt = performance.now();
    const again = await startGroup(dataDir.path, WORKERS, env);
    groups.push(again);
    const killedStates = workersAtKill.map((pid) => `${pid} ${processState(pid)}`).join(', ');
    const reader2 = new Connection(again.url);
    try {
      const stored = new Set(await allIds(reader2));
      expect(acknowledged.filter((id) => !stored.has(id)), 'acknowledged creates missing after the group was killed').to.deep.equal([]);
      const unacknowledgedStored = [...stored].filter((id) => !acknowledged.includes(id));
      await eventually(
        () => {
          const delivered = new Set(receiver!.createdIds());
          return acknowledged.every((id) => delivered.has(id));
        },
        {
          what: 'every acknowledged create delivered',
          context: () => {
            const delivered = new Set(receiver!.createdIds());
            const missing = acknowledged.filter((id) => !delivered.has(id));
            return `${missing.length} missing, e.g. ${missing.slice(0, 20).join(',')}`;
          },
          timeoutMs: 40_000,
        },
      );
      const deliveredAt = performance.now();
      const deliveredMs = deliveredAt - restartedAt;
      // Late repeats have a moment to arrive before they are counted.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const created = receiver.received.filter((hook) => hook.type === 'plant.created');
      const duplicates = repeated(created.map((hook) => hook.id));
      const duplicatePlants = repeated(created.map((hook) => (hook.body as { id: number }).id));
      console.log(
        `      phase 2: ${load2.acknowledged.length} more acknowledged, ${load2.connectionErrors.length} connection errors at the kill; ` +
          `${acknowledged.length} acknowledged in all, ${stored.size} stored (${unacknowledgedStored.length} stored without an acknowledgement); ` +
          `restarted group (killed workers then: ${killedStates}) delivered every acknowledged create ${Math.round(deliveredMs)} ms after its start; ` +
          `${created.length} plant.created webhooks received, ${receiver.received.length} webhooks in all; ` +
          `duplicates by webhook-id: ${duplicates.length}${duplicates.length > 0 ? ` (${duplicates.slice(0, 20).map(([id, times]) => `${id}×${times}`).join(', ')})` : ''}; ` +
          `plants delivered more than once: ${duplicatePlants.length}${duplicatePlants.length > 0 ? ` (${duplicatePlants.slice(0, 20).map(([id, times]) => `${id}×${times}`).join(', ')})` : ''}`,
      );
      expect(receiver.received.every((hook) => hook.verified), 'every webhook verified').to.equal(true);
      expect(created.every((hook) => stored.has((hook.body as { id: number }).id)), 'webhooks only for stored plants').to.equal(true);
      // Claims the killed workers held are taken over at once: not when their leases lapse
      // (1 s attempt + 5 × 5 s storage calls + 1 s = 27 s), the receiver answering at once.
      expect(deliveredMs, `ms from the restart until every acknowledged create was delivered (a lease is 27 s; killed workers at the restart: ${killedStates})`).to.be.below(10_000);
    } finally {
      reader2.close();
    }
  });
  it("one worker killed while its webhook deliveries are in flight (the receiver holds every answer): its claims are taken over at once, not when their 36 s leases lapse; the survivor's deliveries are not repeated", async () => {
    receiver = await WebhookReceiver.start();
    const release = holdAnswers(receiver, PLANTS);
    // Default attempt and storage timeouts: a claim's lease is 10 s + 5 × 5 s + 1 s = 36 s.
    const group = await startGroup(dataDir.path, WORKERS, {
      PLANT_STORE_WEBHOOK_URLS: receiver.url,
      PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    groups.push(group);
    const [victim] = group.workerPids() as [number, number];

    // Which worker made each plant, from its request id.
    const requestIdOf = await createPlants(group);
    const workerOfRequest = await eventually(() => {
      const lines = group.requestLines().filter((line) => line.method === 'POST' && line.status === 200);
      return lines.length >= PLANTS ? new Map(lines.map((line) => [String(line.requestId), line.worker as number])) : undefined;
    }, { what: 'the request lines of the creates' });
    await firstRoundsHeld(receiver);
    const heldIds = receiver.received.map((hook) => (hook.body as { id: number }).id);

    process.kill(victim, 'SIGKILL');
    const killedAt = performance.now();
    const deathLine = await eventually(() => group.lines().find((line) => deathOf(victim).test(line.msg ?? '')), { what: 'the death line', context: () => group.server.output().slice(-2000) });
    const victimId = deathLine.worker as number;
    release(); // the survivor's held deliveries are answered 200 now
    const victimPlants = [...requestIdOf].filter(([, requestId]) => workerOfRequest.get(requestId) === victimId).map(([id]) => id);
    const survivorPlants = [...requestIdOf].filter(([, requestId]) => workerOfRequest.get(requestId) !== victimId).map(([id]) => id);
    const cutWithVictim = heldIds.filter((id) => victimPlants.includes(id));
    const heldBySurvivor = heldIds.filter((id) => !victimPlants.includes(id));
    expect(cutWithVictim.length, 'deliveries under way on the killed worker').to.be.greaterThan(0);

    // Every plant is delivered, and those whose attempt died with the victim are delivered again.
    const after = () => receiver!.received.slice(heldIds.length).filter((hook) => hook.type === 'plant.created').map((hook) => (hook.body as { id: number }).id);
    const done = () => {
      const all = new Set(receiver!.createdIds());
      const again = new Set(after());
      return [...requestIdOf.keys()].every((id) => all.has(id)) && cutWithVictim.every((id) => again.has(id));
    };
    await eventually(done, {
      what: "every plant delivered, the killed worker's cut attempts made again",
      context: () => {
        const again = new Set(after());
        const all = new Set(receiver!.createdIds());
        return `${Math.round(performance.now() - killedAt)} ms after the kill: cut attempts not made again ${cutWithVictim.filter((id) => !again.has(id)).join(',')}; never delivered ${[...requestIdOf.keys()].filter((id) => !all.has(id)).join(',')}`;
      },
      timeoutMs: 45_000,
    });
    const takenOverAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1500)); // late repeats arrive
    const created = receiver.received.filter((hook) => hook.type === 'plant.created');
    const duplicates = repeated(created.map((hook) => hook.id));
    const repeatedSurvivor = repeated(created.map((hook) => (hook.body as { id: number }).id)).filter(([id]) => survivorPlants.includes(id));
    console.log(
      `      ${victimPlants.length} plants through worker ${victimId} (pid ${victim}), ${survivorPlants.length} through the survivor; held when it was killed: ${cutWithVictim.length} of its attempts and ${heldBySurvivor.length} of the survivor's; ` +
        `every plant delivered and the cut attempts made again ${Math.round(takenOverAt - killedAt)} ms after the kill; ${created.length} plant.created received; ` +
        `webhook-ids received twice: ${duplicates.length} (the cut attempts are expected to repeat: ${cutWithVictim.length}); survivor's plants delivered twice: ${repeatedSurvivor.length}`,
    );
    expect(takenOverAt - killedAt, 'ms from the kill until its deliveries were made again (a lease is 36 s)').to.be.below(10_000);
    expect(repeatedSurvivor, "the survivor's plants delivered more than once").to.deep.equal([]);
    expect(duplicates.length, 'webhook-ids received twice: exactly the cut attempts').to.equal(cutWithVictim.length);
    expect(created.every((hook) => hook.verified)).to.equal(true);
  });
  it("the whole group killed while deliveries are in flight (the receiver holds every answer), restarted at once: the killed workers' claims are taken over at once, not when their 36 s leases lapse", async () => {
    receiver = await WebhookReceiver.start();
    const release = holdAnswers(receiver, PLANTS);
    const env = { PLANT_STORE_WEBHOOK_URLS: receiver.url, PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' };
    const group = await startGroup(dataDir.path, WORKERS, env);
    groups.push(group);
    await createPlants(group);
    await firstRoundsHeld(receiver);
    const held = receiver.received.length;

    const workers = group.workerPids();
    await group.killAll();
    release(); // the held attempts' connections are gone with their workers; later attempts are answered at once
    const restartedAt = performance.now();
    const again = await startGroup(dataDir.path, WORKERS, env);
    groups.push(again);
    const killedStates = workers.map((pid) => `${pid} ${processState(pid)}`).join(', ');
    await eventually(() => new Set(receiver!.createdIds()).size === PLANTS && receiver!.received.length >= PLANTS + held, {
      what: 'every plant delivered, the cut attempts made again',
      context: () => `${new Set(receiver!.createdIds()).size} plants delivered, ${receiver!.received.length - held} attempts after the restart; killed workers at the restart: ${killedStates}`,
      timeoutMs: 45_000,
    });
    const deliveredMs = performance.now() - restartedAt;
    console.log(`      ${held} attempts held at the kill; killed workers when the group was back: ${killedStates}; every plant delivered ${Math.round(deliveredMs)} ms after the restart`);
    expect(deliveredMs, `ms from the restart until every plant was delivered (a lease is 36 s; killed workers at the restart: ${killedStates})`).to.be.below(10_000);
  });
});
