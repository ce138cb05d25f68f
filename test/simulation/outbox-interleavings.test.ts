import fc from 'fast-check';
import type { Collection } from 'mongodb';
import { withDeliveries, type PlantRepository } from '../../core/index.js';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { DiskPlantRepository } from '../../adapters/storage/disk/disk-plant-repository.js';
import type { DiskSandbox } from '../../adapters/storage/disk/disk-sandbox.js';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import type { EndpointDocument, LeaseDocument } from '../../adapters/storage/mongo/mongo-delivery-outbox.js';
import type { PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import type { ChangeDocument } from '../../adapters/storage/mongo/mongo-change-reader.js';
import { CollectionStandIn } from '../support/collection-stand-in.js';
import { tempDir } from '../support/temp-dir.js';
import { explore, gated, scenarios, type Gate, type ServerStorage, type StorageMaker } from './outbox-world.js';

// Explores interleavings of two servers' creates and deletes, two delivery workers (one
// pausing past its lease whenever a clock tick lands mid-round) and a receiver that takes,
// refuses or answers 410, on each storage. Invariants (outbox-world.ts): every answer of the
// API is right for the plant's state; an acknowledged create is readable until its delete,
// and a deleted plant never comes back; every acknowledged change is delivered at least once
// after a drain, a deletion never before its creation (per plant and endpoint), nothing of a
// refused change; nothing is left stranded. MongoDB's runs also check the stored documents,
// and its change log: no change left in a plant's document, each plant's changes in the log
// in commit order (a creation, then a deletion, and so on; the two servers stamp changes by
// this process's one clock, so this is the order servers whose clocks agree give).
// Where a storage keeps sandboxes, some runs put the same id in two of them.

const RUNS = { mongodb: 4_000, memory: 2_000, disk: 300, 'disk, a named sandbox': 300 };
const REPOSITORY_METHODS = ['add', 'remove', 'findById'] as const;
const OUTBOX_METHODS = ['claim', 'settle', 'state', 'retryFailed', 'goneEndpoints', 'markGone'] as const;

function property(make: StorageMaker) {
  return fc.asyncProperty(fc.scheduler(), scenarios, async (s, scenario) => {
    const problems = await explore(s, scenario, make);
    if (problems.length > 0) throw new Error(problems.join('\n'));
  });
}

/** A server's view of a storage in this process: each call a task of the scheduler, a sandbox's too. */
function inProcess(repository: MemoryPlantRepository | DiskPlantRepository | DiskSandbox, gate: Gate): ServerStorage {
  const outbox = gated(repository.outbox, gate, OUTBOX_METHODS);
  const server: PlantRepository = Object.assign(gated(repository, gate, REPOSITORY_METHODS), { outbox });
  const { sandbox } = repository as PlantRepository;
  if (sandbox !== undefined) server.sandbox = (name) => gated(sandbox.call(repository, name), gate, REPOSITORY_METHODS);
  return server as ServerStorage;
}

/** MongoDB on stand-ins with its single-document atomicity: two servers, each its own repository. */
const mongodb: StorageMaker = async (gate, random) => {
  const plants = new CollectionStandIn<PlantDocument>({ gate, gateReplies: true });
  const changes = new CollectionStandIn<ChangeDocument>({ gate, gateReplies: true });
  const collections = {
    plants: plants as unknown as Collection<PlantDocument>,
    leases: new CollectionStandIn<LeaseDocument>({ gate, gateReplies: true }) as unknown as Collection<LeaseDocument>,
    endpoints: new CollectionStandIn<EndpointDocument>({ gate, gateReplies: true }) as unknown as Collection<EndpointDocument>,
    changes: changes as unknown as Collection<ChangeDocument>,
  };
  const server = () => MongoPlantRepository.over(collections, { random });
  const servers = [server(), server()] as const;
  const problems = () => [...documentProblems(plants.documents()), ...logProblems(changes.documents())];
  return { servers, callTimeoutMs: servers[0].outbox.callTimeoutMs, problems, close: async () => {} };
};

/** The stored form's own invariants: `due` exact, tombstones holding something, no change left behind. */
function documentProblems(documents: readonly PlantDocument[]): string[] {
  const problems: string[] = [];
  for (const document of documents) {
    const exact = withDeliveries({ deliveries: document.outbox ?? [] }, [])?.dueAt;
    if (document.due !== exact) problems.push(`plant ${document._id}: due ${document.due}, while its next delivery is due at ${exact}`);
    if (document.gone === true && (document.outbox ?? []).length === 0 && document.feed === undefined) problems.push(`plant ${document._id}: a tombstone with no deliveries and no changes`);
    if (document.outbox !== undefined && document.outbox.length === 0) problems.push(`plant ${document._id}: an empty outbox`);
    // Every call has returned: each copied its change into the log and took it out.
    if (document.feed !== undefined || document.fv !== undefined || document.feedSince !== undefined) problems.push(`plant ${document._id}: changes left in the document (${JSON.stringify(document.feed)})`);
  }
  return problems;
}

/** Each plant's changes, in the log's order (`at`, then id), alternate: created, deleted, created… */
function logProblems(changes: readonly ChangeDocument[]): string[] {
  const problems: string[] = [];
  const byPlant = new Map<string, ChangeDocument[]>();
  for (const change of changes) {
    const plant = `${change.sb}/${change.data.id}`;
    byPlant.set(plant, [...(byPlant.get(plant) ?? []), change]);
  }
  for (const [plant, list] of byPlant) {
    const types = list.sort((a, b) => a.at - b.at || (a._id < b._id ? -1 : 1)).map((change) => change.type);
    if (types.some((type, i) => type !== (i % 2 === 0 ? 'plant.created' : 'plant.deleted'))) problems.push(`plant ${plant}: changes in the log out of order: ${types.join(', ')}`);
  }
  return problems;
}

const memory: StorageMaker = async (gate) => {
  const repository = new MemoryPlantRepository();
  // Memory answers every call at once.
  return { servers: [inProcess(repository, gate), inProcess(repository, gate)], callTimeoutMs: 0, close: async () => {} };
};

const disk: StorageMaker = async (gate) => {
  const dataDir = tempDir('plant-store-simulation-');
  const repository = DiskPlantRepository.open(dataDir.path);
  return {
    servers: [inProcess(repository, gate), inProcess(repository, gate)],
    callTimeoutMs: repository.outbox.callTimeoutMs,
    close: async () => {
      await repository.close();
      dataDir.remove();
    },
  };
};

/**
 * Disk with both servers in one named sandbox, whose plants the outbox keys apart from the
 * default's (`<sandbox>/<id>` in its due index and claims); the default sandbox holds the
 * same ids meanwhile, without deliveries, so reading or refusing across sandboxes shows.
 */
const diskSandbox: StorageMaker = async (gate) => {
  const dataDir = tempDir('plant-store-simulation-');
  const repository = DiskPlantRepository.open(dataDir.path);
  await repository.addMany([1, 2, 3].map((id) => ({ id, name: `default ${id}` })));
  const garden = repository.sandbox('garden');
  return {
    servers: [inProcess(garden, gate), inProcess(garden, gate)],
    callTimeoutMs: repository.outbox.callTimeoutMs,
    close: async () => {
      await repository.close();
      dataDir.remove();
    },
  };
};

describe('webhook outbox: explored interleavings of two servers, two workers, a receiver and a clock', function () {
  this.timeout(120_000);
  for (const [name, make] of [['mongodb', mongodb], ['memory', memory], ['disk', disk], ['disk, a named sandbox', diskSandbox]] as const) {
    it(`${name}: ${RUNS[name]} schedules keep every invariant`, async () => {
      const started = performance.now();
      await fc.assert(property(make), { numRuns: RUNS[name] });
      console.log(`      ${RUNS[name]} schedules in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    });
  }
});
