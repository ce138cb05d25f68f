import type { PendingDelivery } from '../outbox/pending-delivery.js';
import type { Plant } from '../plant.js';
import type { ChangeLog, ChangeRetention } from './change-log.js';
import type { SandboxRegistry } from './sandbox-registry.js';

/** What a page of plants is asked for: ids above `after`, any of `tags`, at most `limit`. */
export interface PageRequest {
  readonly limit: number;
  readonly after?: number;
  readonly tags?: readonly string[];
}

/**
 * Where plants are kept. Implementations translate their own failures into
 * `PlantStoreError(StorageUnavailable)` and return copies the caller may not mutate into them.
 */
export interface PlantRepository {
  /** Plants matching the request in ascending id order; cost O(limit + log N). */
  page(request: PageRequest): Promise<Plant[]>;
  findById(id: number): Promise<Plant | undefined>;
  /**
   * Stores the plant unless its id is taken; atomic, so false means someone holds the id.
   * `deliveries` (the change's webhooks) are recorded in the same atomic write, or not at
   * all: the one addition the outbox needs from this port, since only the storage can make
   * the two one write. Storages without a DeliveryOutbox take none.
   */
  add(plant: Plant, deliveries?: readonly PendingDelivery[], limits?: AddLimits): Promise<boolean>;
  /**
   * Optional: adds many plants, each as `add` would (taken ids, earlier ones in the same
   * list included, give false at their index), all durable when it resolves. For imports,
   * where one write of many plants is much cheaper than many (disk: one transaction and one
   * sync per call, about 5× faster on a large import; MongoDB: one unordered insertMany);
   * callers facing a repository without it use `add` for each plant. It records no change in
   * the change log, on every storage: an import or a new sandbox's seed is a load, not a
   * change to tell followers of one by one (a million of them would flood every stream and
   * double the log for a day).
   */
  addMany?(plants: readonly Plant[]): Promise<boolean[]>;
  /** False when no plant had that id. `deliveries` as for `add`: recorded in the same atomic write. */
  remove(id: number, deliveries?: readonly PendingDelivery[]): Promise<boolean>;
  /** Resolves when the storage answers; for readiness checks. */
  ping(): Promise<void>;
  /**
   * Optional: the plants of the named sandbox, with ids of their own, as a repository of the
   * same kind sharing this one's storage and outbox (this repository itself holds the
   * default sandbox's). Cheap to call per request: the same name may give the same object.
   * A storage without it keeps only the default sandbox.
   */
  sandbox?(name: string): PlantRepository;
  /**
   * Optional, with `sandbox`: removes up to `limit` of this repository's plants with their
   * outbox records (pending deliveries dropped), for a sandbox that is gone; answers how
   * many, 0 once none is left. Bounded, so a large sandbox never stalls other requests.
   */
  purge?(limit: number): Promise<number>;
  /** Optional: the self-service sandboxes, kept in this storage. */
  readonly sandboxes?: SandboxRegistry;
  /**
   * Optional: this repository's (sandbox's) change log, which `add` and `remove` append to
   * in the same atomic write as the change (see ChangeLog; `addMany` records none, and a
   * purge takes the sandbox's changes with it). A storage without it has no change feed.
   */
  readonly changes?: ChangeLog;
  /** Optional, with `changes`: how the store forgets the changes older than retention, of every sandbox. */
  readonly changeRetention?: ChangeRetention;
}

/** What may bound an add. */
export interface AddLimits {
  /**
   * The most plants the repository (a sandbox) may hold: an add beyond it throws
   * PlantStoreError 40303, decided atomically with the add (concurrent adds at the edge
   * store exactly this many).
   */
  readonly maxPlants?: number;
}
