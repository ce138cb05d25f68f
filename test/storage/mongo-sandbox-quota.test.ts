import { expect } from 'chai';
import fc from 'fast-check';
import { MongoNetworkError, type Collection } from 'mongodb';
import { ErrorCode, isPlantStoreError, type Plant } from '../../core/index.js';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import type { EndpointDocument, LeaseDocument } from '../../adapters/storage/mongo/mongo-delivery-outbox.js';
import { plantOfKey, type PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import { RECOUNT_QUIET_MS, type SandboxCountDocument } from '../../adapters/storage/mongo/sandbox-counts.js';
import { CollectionStandIn } from '../support/collection-stand-in.js';

// The quota of a MongoDB sandbox is a count in one document, reserved by one conditional
// update (see SandboxCounts). Its atomicity is MongoDB's single-document atomicity, which
// FerretDB, the tests' database, lacks; so it is proven here on stand-ins that have it
// (test/support/collection-stand-in.ts), with fast-check's scheduler choosing the order in
// which every operation of two servers' adds and removes at the quota's edge applies and is
// answered, and the clock running past the quiet period (when no add is under way, as each
// ends within its deadline) so that recounts interleave too. Some runs lose a call's reply
// or the call itself (a process dying between its two writes). Invariants, at every step:
// the sandbox never holds more than its quota, and its count is never below what it holds;
// after the run every answer adds up, and the sandbox takes plants up to exactly its quota, a
// count left high by a lost call set right by the first add refused once the sandbox is quiet.

const T0 = 1_800_000_000_000;
const SANDBOX = 'box';
const RUNS = 3_000;

type Fault = 'none' | 'insert lost' | 'insert landed, reply lost' | 'count-off lost';
type Answer = 'added' | 'taken' | 'full' | 'removed' | 'absent' | 'unavailable' | 'waited';

interface Call {
  /** A wait lets the client's next call start later: after a tick, say, with other calls half done. */
  readonly op: 'add' | 'remove' | 'wait';
  readonly id: number;
  readonly server: 0 | 1;
}
interface Scenario {
  readonly max: number;
  /** Plants 1..held are in the sandbox before the calls (at most max). */
  readonly held: number;
  /** Per client, its calls in sequence; the clients run at once. */
  readonly clients: readonly (readonly Call[])[];
  /** Clock jumps past the quiet period, each taken when no add is under way. */
  readonly ticks: number;
  /** What goes wrong once on server 1 (its first call of the kind). */
  readonly fault: Fault;
}

const call: fc.Arbitrary<Call> = fc.record({ op: fc.constantFrom<Call['op']>('add', 'add', 'add', 'remove', 'remove', 'wait'), id: fc.integer({ min: 1, max: 6 }), server: fc.constantFrom<0 | 1>(0, 1) });

const scenarios: fc.Arbitrary<Scenario> = fc
  .record({
    max: fc.integer({ min: 1, max: 4 }),
    held: fc.integer({ min: 0, max: 4 }),
    clients: fc.array(fc.array(call, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
    ticks: fc.integer({ min: 0, max: 2 }),
    fault: fc.constantFrom<Fault>('none', 'none', 'insert lost', 'insert landed, reply lost', 'count-off lost'),
  })
  .map((scenario) => ({ ...scenario, held: Math.min(scenario.held, scenario.max) }));

const plant = (id: number): Plant => ({ id, name: `plant ${id}` });

/** A collection whose first call of `method` matching `when` fails as a lost connection would: before it applies, or after (its reply lost). */
function failingOnce<T extends object>(target: T, method: string, when: (args: unknown[]) => boolean, applied: boolean, fired: () => void): T {
  let armed = true;
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== method) return value.bind(object);
      return async (...args: unknown[]) => {
        if (!armed || !when(args)) return value.apply(object, args);
        armed = false;
        // Applied, its reply is lost (the call refused as it is sent, say a taken id, is no fault);
        // not applied, the call is.
        if (applied) await value.apply(object, args);
        fired();
        throw new MongoNetworkError(applied ? 'the reply was lost' : 'the connection was lost');
      };
    },
  });
}

/** Two servers' repositories on one set of stand-ins, one of them failing as the scenario says. */
function world(gate: (label: string) => Promise<void>, clock: { now: number }, fault: Fault) {
  const plants = new CollectionStandIn<PlantDocument>({ gate, gateReplies: true });
  const counts = new CollectionStandIn<SandboxCountDocument>({ gate, gateReplies: true });
  let faultFired = false;
  const fire = () => (faultFired = true);
  const collections = {
    plants: plants as unknown as Collection<PlantDocument>,
    leases: new CollectionStandIn<LeaseDocument>({ gate }) as unknown as Collection<LeaseDocument>,
    endpoints: new CollectionStandIn<EndpointDocument>({ gate }) as unknown as Collection<EndpointDocument>,
    sandboxCounts: counts as unknown as Collection<SandboxCountDocument>,
  };
  const faulty = {
    ...collections,
    ...(fault === 'insert lost' && { plants: failingOnce(collections.plants, 'insertOne', () => true, false, fire) }),
    ...(fault === 'insert landed, reply lost' && { plants: failingOnce(collections.plants, 'insertOne', () => true, true, fire) }),
    // A count-off is the update conditional on the epoch read before the delete.
    ...(fault === 'count-off lost' && { sandboxCounts: failingOnce(collections.sandboxCounts, 'updateOne', (args) => 'epoch' in (args[0] as object) && !('$set' in (args[1] as object)), false, fire) }),
  };
  const options = { now: () => clock.now };
  const servers = [MongoPlantRepository.over(collections, options).sandbox(SANDBOX), MongoPlantRepository.over(faulty, options).sandbox(SANDBOX)] as const;
  const live = () => plants.documents().filter((document) => typeof document._id === 'string' && document._id.startsWith(`${SANDBOX}/`) && document.gone !== true);
  const count = () => counts.documents().find((document) => document._id === SANDBOX);
  return { servers, live, count, faultFired: () => faultFired };
}

async function answerOf(call: Promise<boolean>, op: 'add' | 'remove'): Promise<Answer> {
  try {
    const done = await call;
    if (op === 'add') return done ? 'added' : 'taken';
    return done ? 'removed' : 'absent';
  } catch (error) {
    if (isPlantStoreError(error) && error.code === ErrorCode.SandboxFull) return 'full';
    if (isPlantStoreError(error) && error.code === ErrorCode.StorageUnavailable) return 'unavailable';
    throw error;
  }
}

async function explore(s: fc.Scheduler, scenario: Scenario): Promise<{ problems: string[]; answers: Answer[] }> {
  const problems: string[] = [];
  const clock = { now: T0 };
  let scheduling = false;
  // Checked whenever an operation is about to apply or be answered: so after every change.
  const check = (when: string) => {
    const held = live().length;
    const counted = count()?.plants ?? 0;
    if (held > scenario.max) problems.push(`${when}: the sandbox holds ${held} plants, over its quota of ${scenario.max}`);
    if (counted < held) problems.push(`${when}: the count is ${counted}, below the ${held} plants held`);
  };
  const gate = async (label: string) => {
    if (!scheduling) return;
    check(`before ${label}`);
    await s.schedule(Promise.resolve(), label);
  };
  const { servers, live, count, faultFired } = world(gate, clock, scenario.fault);
  for (let id = 1; id <= scenario.held; id++) await servers[0].add(plant(id), [], { maxPlants: scenario.max });
  scheduling = true;

  let addsUnderWay = 0;
  const run = async ({ op, id, server }: Call): Promise<Answer> => {
    if (op === 'wait') {
      await s.schedule(Promise.resolve(), 'wait');
      return 'waited';
    }
    if (op === 'remove') return answerOf(servers[server].remove(id), op);
    addsUnderWay++;
    try {
      return await answerOf(servers[server].add(plant(id), [], { maxPlants: scenario.max }), op);
    } finally {
      addsUnderWay--;
    }
  };
  const ticker = async () => {
    for (let tick = 0; tick < scenario.ticks; tick++) {
      // Bounded: past this the adds are done anyway.
      for (let wait = 0; wait < 40 && addsUnderWay > 0; wait++) await s.schedule(Promise.resolve(), 'tick waits');
      await s.schedule(Promise.resolve(), 'tick');
      if (addsUnderWay === 0) clock.now += RECOUNT_QUIET_MS + 1;
    }
  };
  const client = async (calls: readonly Call[]) => {
    const answers: Answer[] = [];
    for (const next of calls) answers.push(await run(next));
    return answers;
  };
  const calls = scenario.clients.flat();
  const answers = await s.waitFor(Promise.all([Promise.all(scenario.clients.map(client)), ticker()]).then(([done]) => done.flat()));
  scheduling = false;
  check('at rest');

  // Every answer adds up: what is held is what was there, added and removed (and the
  // insert or delete whose answer was lost, but which landed).
  const tally = (answer: Answer) => answers.filter((a) => a === answer).length;
  const unseen = (fault: Fault) => (scenario.fault === fault && faultFired() ? 1 : 0);
  const expected = scenario.held + tally('added') - tally('removed') + unseen('insert landed, reply lost') - unseen('count-off lost');
  if (live().length !== expected) problems.push(`at rest: ${live().length} plants held, while the answers make ${expected}`);
  for (const [k, answer] of answers.entries()) {
    const { op, id, server } = calls[k]!;
    const claimedElsewhere = id <= scenario.held || calls.some((other, j) => j !== k && other.op === 'add' && other.id === id);
    if (answer === 'taken' && !claimedElsewhere) problems.push(`call ${k}: the add of ${id} answered taken, while nothing else held that id`);
    if (answer === 'unavailable' && !(faultFired() && server === 1)) problems.push(`call ${k}: the ${op} of ${id} answered unavailable`);
  }

  // The sandbox takes plants up to exactly its quota: an add refused by a count left high is
  // taken once the sandbox has been quiet (the refusal recounts).
  for (let id = 100; id < 100 + scenario.max + 2; id++) {
    const room = live().length < scenario.max;
    const add = () => answerOf(servers[0].add(plant(id), [], { maxPlants: scenario.max }), 'add');
    let answer = await add();
    if (answer === 'full') {
      clock.now += RECOUNT_QUIET_MS + 1;
      answer = await add();
    }
    if (answer !== (room ? 'added' : 'full')) problems.push(`filling: the add of ${id} answered ${answer} with ${live().length} of ${scenario.max} held`);
  }
  if (live().length !== scenario.max || count()?.plants !== scenario.max) problems.push(`filled: ${live().length} plants held, counted ${count()?.plants}, quota ${scenario.max}`);
  // Full, a taken id is still answered as taken.
  const taken = live()[0]!._id;
  const takenAnswer = await answerOf(servers[0].add(plant(plantOfKey(taken).plantId), [], { maxPlants: scenario.max }), 'add');
  if (takenAnswer !== 'taken') problems.push(`full, the add of the taken ${taken} answered ${takenAnswer}`);
  return { problems, answers };
}

describe('MongoDB sandbox quota: adds at the edge on stand-ins with MongoDB\'s atomicity', function () {
  this.timeout(120_000);

  it(`${RUNS} explored schedules of two servers' adds and removes, lost calls and recounts keep the quota exact`, async () => {
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenarios, async (s, scenario) => {
        const { problems } = await explore(s, scenario);
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      { numRuns: RUNS },
    );
    console.log(`      ${RUNS} schedules in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });

  it('one room left and two adds racing: each step in either order, exactly one gets it', async () => {
    // Scripted: the scheduler runs every order of the two adds' operations.
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const { problems, answers } = await explore(s, { max: 3, held: 2, clients: [[{ op: 'add', id: 10, server: 0 }], [{ op: 'add', id: 11, server: 1 }]], ticks: 0, fault: 'none' });
        if (problems.length > 0) throw new Error(problems.join('\n'));
        expect([...answers].sort()).to.deep.equal(['added', 'full']);
      }),
      { numRuns: 200 },
    );
  });

  it('a remove straddling a recount: deleted before it is counted, counted off only if no recount came between', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), async (s) => {
        const { problems } = await explore(s, { max: 2, held: 2, clients: [[{ op: 'remove', id: 1, server: 0 }], [{ op: 'wait', id: 0, server: 1 }, { op: 'add', id: 7, server: 1 }]], ticks: 1, fault: 'none' });
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      { numRuns: 300 },
    );
  });

  it('an add that dies between its reservation and its insert leaves the count one high until the sandbox is quiet, then a recount sets it right', async () => {
    const clock = { now: T0 };
    const { servers, live, count } = world(async () => {}, clock, 'insert lost');
    for (let id = 1; id <= 2; id++) expect(await servers[0].add(plant(id), [], { maxPlants: 3 })).to.equal(true);
    expect(await answerOf(servers[1].add(plant(3), [], { maxPlants: 3 }), 'add'), 'the insert lost').to.equal('unavailable');
    expect([live().length, count()!.plants]).to.deep.equal([2, 3]);
    clock.now += RECOUNT_QUIET_MS - 1;
    expect(await answerOf(servers[0].add(plant(4), [], { maxPlants: 3 }), 'add'), 'within the quiet period').to.equal('full');
    clock.now += 2;
    expect(await servers[0].add(plant(4), [], { maxPlants: 3 }), 'once quiet: recounted').to.equal(true);
    expect([live().length, count()!.plants]).to.deep.equal([3, 3]);
    expect(await answerOf(servers[0].add(plant(5), [], { maxPlants: 3 }), 'add'), 'and full again').to.equal('full');
  });
});
