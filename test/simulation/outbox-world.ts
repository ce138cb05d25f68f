import fc from 'fast-check';
import {
  DEFAULT_SANDBOX,
  leaseMsFor,
  plantCreated,
  plantDeleted,
  plantsIn,
  Subscriptions,
  type DeliveryOutbox,
  type PendingDelivery,
  type PlantEvent,
  type PlantRepository,
} from '../../core/index.js';
import { DeliveryWorker } from '../../adapters/webhooks/delivery-worker.js';

// A deterministic world for the webhook outbox: two servers' API calls, two delivery
// workers, a receiver and a clock, all running the project's own code, with every storage
// operation, every request to the receiver and every clock tick a task of fast-check's
// scheduler. The scheduler picks the order in which they complete, so a run is one
// interleaving, replayable from its seed; the clock is simulated, so a worker "pauses past
// its lease" whenever a tick lands between its send and its settle.

export const ENDPOINTS = ['https://one.example/hook', 'https://two.example/hook'] as const;
const T0 = 1_800_000_000_000;
/** One retry, this long after the first attempt: a delivery answered 500 twice fails. */
const RETRY_MS = 1_000;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** Lets the scheduler decide when an operation takes effect (and, for replies, when its caller hears of it). */
export type Gate = (label: string) => Promise<void>;

/** A storage as the two servers see it. */
export interface StorageUnderTest {
  readonly servers: readonly [ServerStorage, ServerStorage];
  /** The storage's call timeout, which the workers' lease covers (as the composition sizes it). */
  readonly callTimeoutMs: number;
  /** What is wrong with the stored state at rest, in words; nothing when sound. */
  problems?(): string[];
  close(): Promise<void>;
}
export type ServerStorage = PlantRepository & { readonly outbox: DeliveryOutbox };
export type StorageMaker = (gate: Gate, random: () => number) => Promise<StorageUnderTest>;

type Op = 'create' | 'delete';
interface Pause {
  readonly after: number;
  readonly steps: number;
}
export interface Scenario {
  /** Per plant id, one API client: its calls in sequence, each to server 0 or 1. */
  readonly clients: readonly { readonly ops: readonly Op[]; readonly servers: readonly (0 | 1)[] }[];
  /** Rounds each worker runs once the clients are done (it runs all along before that). */
  readonly workerRounds: readonly [number, number];
  /**
   * Per worker, a pause: after its `after`-th send it holds the answer (between its send and
   * its settle) for `steps` of its own scheduled turns, or (`steps` 0) until every other
   * actor is done, while the clock runs past its lease.
   */
  readonly pauses: readonly [Pause | null, Pause | null];
  /** Clock advances, in units: 1 ms, the retry delay, or past a lease. */
  readonly ticks: readonly ('ms' | 'retry' | 'lease')[];
  /** The receiver's answers in order; 200 after them. */
  readonly answers: readonly (200 | 500 | 410)[];
  /** What is subscribed: creations only (the default), or deletions too; by one endpoint or two. */
  readonly events: readonly PlantEvent['type'][];
  readonly endpoints: number;
  /**
   * Where the storage keeps sandboxes: the clients alternate between the default sandbox and
   * another, the first two on the same id, so two plants share an id (and every step of
   * their outboxes) apart from their sandbox.
   */
  readonly sandboxes: boolean;
  /** Seeds the storages' own choices (which candidates a claim takes first). */
  readonly seed: number;
}

const pauseOf = (minSteps: number) => fc.option(fc.record({ after: fc.integer({ min: 0, max: 3 }), steps: fc.integer({ min: minSteps, max: 40 }) }), { freq: 2 });

export const scenarios: fc.Arbitrary<Scenario> = fc.record({
  clients: fc.array(
    fc.array(fc.record({ op: fc.constantFrom<Op>('create', 'create', 'delete'), server: fc.constantFrom<0 | 1>(0, 1) }), { minLength: 1, maxLength: 4 }).map((calls) => ({
      ops: calls.map((call) => call.op),
      servers: calls.map((call) => call.server),
    })),
    { minLength: 1, maxLength: 3 },
  ),
  workerRounds: fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })),
  // Only the first worker waits for the others: two doing so would wait for each other.
  pauses: fc.tuple(pauseOf(0), pauseOf(1)),
  ticks: fc.array(fc.constantFrom<'ms' | 'retry' | 'lease'>('ms', 'retry', 'lease'), { maxLength: 4 }),
  answers: fc.array(fc.constantFrom<200 | 500 | 410>(200, 200, 500, 410), { maxLength: 6 }),
  events: fc.constantFrom<PlantEvent['type'][]>(['plant.created'], ['plant.created', 'plant.deleted']),
  endpoints: fc.constantFrom(1, 2),
  sandboxes: fc.boolean(),
  seed: fc.integer(),
});

/** One acknowledged change and the deliveries it recorded, by endpoint. */
interface Change {
  readonly type: PlantEvent['type'];
  readonly deliveries: ReadonlyMap<string, string>;
}
interface Receipt {
  readonly endpoint: string;
  readonly deliveryId: string;
  /** The plant as `sandbox/id` (see plantLabel). */
  readonly plant: string;
}

/** A plant of the world: its id and sandbox, as `sandbox/id`. */
const plantLabel = (sandbox: string | undefined, id: number) => `${sandbox ?? DEFAULT_SANDBOX}/${id}`;

/** A receiver taking the workers' requests: each arrives, then is answered, at a time the scheduler picks. */
class SimulatedReceiver {
  readonly receipts: Receipt[] = [];
  readonly answers: (200 | 500 | 410)[];

  constructor(
    private readonly gate: Gate,
    answers: readonly (200 | 500 | 410)[],
  ) {
    this.answers = [...answers];
  }

  async send(delivery: PendingDelivery): Promise<{ status: number; durationMs: number }> {
    await this.gate(`arrive ${delivery.event.type} ${delivery.event.data.id}`);
    const status = this.answers.shift() ?? 200;
    if (status === 200) this.receipts.push({ endpoint: delivery.endpoint, deliveryId: delivery.id, plant: plantLabel(delivery.event.sandbox, delivery.event.data.id) });
    await this.gate(`answer ${status}`);
    return { status, durationMs: 0 };
  }

  close(): void {}
}

/** A worker's way to the receiver; where its scenario says, it pauses after hearing the answer. */
class PausingSender {
  private sends = 0;

  constructor(
    private readonly receiver: SimulatedReceiver,
    private readonly gate: Gate,
    private readonly pause: Pause | null,
    private readonly pastLease: () => void,
    private readonly othersDone: Promise<unknown>,
  ) {}

  async send(delivery: PendingDelivery): Promise<{ status: number; durationMs: number }> {
    const answer = await this.receiver.send(delivery);
    if (this.pause !== null && this.sends++ === this.pause.after) {
      this.pastLease();
      if (this.pause.steps === 0) await this.othersDone;
      for (let step = 0; step < this.pause.steps; step++) await this.gate('paused');
    }
    return answer;
  }

  close(): void {}
}

/** Runs one scenario under the scheduler; answers the invariants it broke, in words. */
export async function explore(s: fc.Scheduler, scenario: Scenario, make: StorageMaker): Promise<string[]> {
  const gate: Gate = (label) => s.schedule(Promise.resolve(), label);
  const storage = await make(gate, seeded(scenario.seed));
  try {
    return await run(s, scenario, storage, gate);
  } finally {
    await storage.close();
  }
}

async function run(s: fc.Scheduler, scenario: Scenario, storage: StorageUnderTest, gate: Gate): Promise<string[]> {
  const clock = { now: T0 };
  const endpoints = ENDPOINTS.slice(0, scenario.endpoints);
  const subscriptions = new Subscriptions(endpoints, scenario.events, () => clock.now);
  const receiver = new SimulatedReceiver(gate, scenario.answers);
  const leaseMs = leaseMsFor(100, storage.callTimeoutMs);
  const done = [deferred(), deferred()] as const;
  const workers = storage.servers.map((server, i) => {
    const sender = new PausingSender(receiver, gate, scenario.pauses[i]!, () => (clock.now += leaseMs + 1), done[1 - i]!.promise);
    return new DeliveryWorker({ outbox: server.outbox, sender, endpoints, retrySchedule: [RETRY_MS], leaseMs, settleConcurrency: 16, log: quiet, clock: { now: () => clock.now } });
  });
  const problems: string[] = [];
  /** Per plant (see plantLabel), its acknowledged changes in order. */
  const changes = new Map<string, Change[]>();
  /** Every delivery a change recorded whose call was answered false (nothing may be sent of it). */
  const refused = new Set<string>();

  const client = async ({ id, sandbox }: ClientPlant, ops: readonly Op[], servers: readonly (0 | 1)[]): Promise<boolean> => {
    let exists = false;
    const label = plantLabel(sandbox, id);
    changes.set(label, []);
    for (const [k, op] of ops.entries()) {
      const server = plantsIn(storage.servers[servers[k]!]!, sandbox);
      const plant = { id, name: `plant ${id} #${k}` };
      const event = op === 'create' ? plantCreated(plant, sandbox) : plantDeleted(id, sandbox);
      const deliveries = subscriptions.deliveriesFor(event);
      const done = op === 'create' ? await server.add(plant, deliveries) : await server.remove(id, deliveries);
      // One client per plant, so each answer is known: a create succeeds exactly when the id is free.
      if (done !== (op === 'create' ? !exists : exists)) problems.push(`${op} of plant ${label} (call ${k}) answered ${done} while the plant ${exists ? 'existed' : 'did not exist'}`);
      if (done) {
        exists = op === 'create';
        changes.get(label)!.push({ type: event.type, deliveries: new Map(deliveries.map((delivery) => [delivery.endpoint, delivery.id])) });
      } else for (const delivery of deliveries) refused.add(delivery.id);
      const seen = await plantsIn(storage.servers[1 - servers[k]!]!, sandbox).findById(id);
      if ((seen !== undefined) !== exists) problems.push(`after the ${op} of plant ${label} (call ${k}) the other server read ${JSON.stringify(seen)}`);
    }
    return exists;
  };
  let clientsDone = false;
  const worker = async (index: number, rounds: number) => {
    // Bounded: a storage doing real I/O (disk) lets a worker spin while a write is on its way.
    for (let round = 0; !clientsDone && round < 40; round++) await workers[index]!.deliverDue();
    for (let round = 0; round < rounds; round++) await workers[index]!.deliverDue();
    done[index]!.resolve();
  };
  const ticker = async () => {
    for (const tick of scenario.ticks) {
      await gate(`tick ${tick}`);
      clock.now += tick === 'ms' ? 1 : tick === 'retry' ? RETRY_MS : leaseMs + 1;
    }
  };

  const sandboxes = scenario.sandboxes && storage.servers[0].sandbox !== undefined;
  const plants = scenario.clients.map((_, i) => clientPlant(i, sandboxes));
  const clients = scenario.clients.map((c, i) => client(plants[i]!, c.ops, c.servers));
  void Promise.all(clients).then(() => (clientsDone = true));
  await s.waitFor(Promise.all([Promise.all(clients), worker(0, scenario.workerRounds[0]), worker(1, scenario.workerRounds[1]), ticker()]));
  const exists = await Promise.all(clients);
  problems.push(...(storage.problems?.() ?? []).map((problem) => `at rest: ${problem}`));

  // Drain: the receiver takes everything now; an operator retries what failed, the workers run
  // until nothing is left. Whatever is still pending after that was stranded.
  receiver.answers.length = 0;
  clock.now += 10 * leaseMs;
  await s.waitFor(storage.servers[0].outbox.retryFailed(clock.now));
  for (let round = 0, idle = 0; round < 40 && idle < 2; round++) {
    const claimed = await s.waitFor(workers[round % 2]!.deliverDue());
    idle = claimed === 0 ? idle + 1 : 0;
    clock.now += RETRY_MS + leaseMs;
  }
  const state = await s.waitFor(storage.servers[0].outbox.state());
  if (state.pending !== 0 || state.failed.length !== 0) problems.push(`after draining: ${state.pending} pending and ${state.failed.length} failed (stranded)`);
  problems.push(...(storage.problems?.() ?? []).map((problem) => `after draining: ${problem}`));

  for (const [index, { id, sandbox }] of plants.entries()) {
    const seen = await s.waitFor(plantsIn(storage.servers[index % 2]!, sandbox).findById(id));
    if ((seen !== undefined) !== exists[index]) problems.push(`plant ${plantLabel(sandbox, id)} ${exists[index] ? 'lost' : 'came back'} at the end`);
  }
  problems.push(...deliveryProblems(changes, refused, receiver.receipts, endpoints));
  return problems;
}

/** A client's plant: without sandboxes plant i + 1; with them, clients alternate between the default sandbox and another, two by two on one id. */
interface ClientPlant {
  readonly id: number;
  /** Undefined for the default sandbox. */
  readonly sandbox: string | undefined;
}
function clientPlant(index: number, sandboxes: boolean): ClientPlant {
  if (!sandboxes) return { id: index + 1, sandbox: undefined };
  return { id: Math.floor(index / 2) + 1, sandbox: index % 2 === 0 ? undefined : 'garden' };
}

/** At least once, in order per plant and endpoint, nothing of a refused change. */
function deliveryProblems(changes: ReadonlyMap<string, Change[]>, refused: ReadonlySet<string>, receipts: readonly Receipt[], endpoints: readonly string[]): string[] {
  const problems: string[] = [];
  for (const receipt of receipts) if (refused.has(receipt.deliveryId)) problems.push(`plant ${receipt.plant}: a delivery of a refused change was sent`);
  for (const [plant, acknowledged] of changes) {
    for (const endpoint of endpoints) {
      const arrived = receipts.filter((receipt) => receipt.endpoint === endpoint).map((receipt) => receipt.deliveryId);
      let previous = -1;
      for (const [k, change] of acknowledged.entries()) {
        const delivery = change.deliveries.get(endpoint);
        // Not subscribed: nothing to deliver.
        if (delivery === undefined) continue;
        const first = arrived.indexOf(delivery);
        if (first < 0) problems.push(`plant ${plant}: the ${change.type} of change ${k} never reached ${endpoint}`);
        else if (first < previous) problems.push(`plant ${plant}: the ${change.type} of change ${k} reached ${endpoint} before the change ahead of it`);
        previous = Math.max(previous, first);
      }
    }
  }
  return problems;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** A small seeded generator (mulberry32): the storages' choices replay with the schedule. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Wraps a storage that lives in this process so each call is a task of the scheduler: it
 * takes effect, and its caller hears of it, when the scheduler says. The storage's own
 * steps stay as atomic as they are.
 */
export function gated<T extends object>(target: T, gate: Gate, methods: readonly (keyof T & string)[]): T {
  const wrapper = Object.create(target) as T;
  for (const name of methods) {
    const method = (target[name] as (...args: unknown[]) => Promise<unknown>).bind(target);
    (wrapper as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      await gate(name);
      const result = await method(...args);
      await gate(`${name}:reply`);
      return result;
    };
  }
  return wrapper;
}
