import sortedBtree from 'sorted-btree';
import { checkedSandboxName, DEFAULT_SANDBOX, sandboxFull, type AddLimits, type ChangeLog, type PageRequest, type PendingDelivery, type Plant, type PlantRepository } from '../../../core/index.js';
import { MemoryChangeLogs } from './memory-change-log.js';
import { MemoryDeliveryOutbox } from './memory-delivery-outbox.js';
import { MemorySandboxRegistry } from './memory-sandbox-registry.js';

// sorted-btree is CommonJS with its class on `default`.
const BTree = sortedBtree.default;
/** What is kept of a plant: its id is the key it is stored under. */
interface StoredPlant {
  readonly name: string;
  readonly tag?: string;
}
type Tree = InstanceType<typeof BTree<number, StoredPlant>>;

// Object literals of a fixed shape: a spread copy (`{ ...plant }`) can take twice the memory.
const toStored = (plant: Plant): StoredPlant =>
  Object.freeze(plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag });
const toPlant = (id: number, stored: StoredPlant): Plant =>
  stored.tag === undefined ? { id, name: stored.name } : { id, name: stored.name, tag: stored.tag };

/**
 * Until it has held more than this many plants, a sandbox keeps no tree per tag: a tagged
 * page walks its plants by id (at most this many steps, a bound like the page's limit). A
 * tree of a plant or two takes about 500 bytes (60,000 such trees: 30 MB of heap), and a
 * playground's many small sandboxes would hold one per tag: 10,000 sandboxes of 10 plants
 * over 6 tags took 82 MB of heap with them, 49 MB without.
 */
const UNINDEXED_PLANTS = 32;

/** What the sandboxes of one memory storage share. */
interface SharedStorage {
  readonly outbox: MemoryDeliveryOutbox;
  readonly registry: MemorySandboxRegistry;
  readonly sandboxes: Map<string, MemoryPlantRepository>;
  readonly changeLogs: MemoryChangeLogs;
}

/**
 * Plants in this process, in B+ trees keyed by id (one for all plants, one per tag), so a
 * page is a range read, O(limit + log N), and never a sort or a scan (a sandbox of at most
 * UNINDEXED_PLANTS plants has no tag trees yet: a tagged page walks those few). Each sandbox
 * has trees of its own (a page costs the same however many sandboxes there are); they share
 * the outbox.
 */
export class MemoryPlantRepository implements PlantRepository {
  private readonly byId: Tree = new BTree<number, StoredPlant>();
  /** One tree per tag, once the sandbox has held more than UNINDEXED_PLANTS plants (then kept). */
  private byTag: Map<string, Tree> | undefined;
  /** The deliveries recorded with the changes (lost with the process, like the plants). */
  readonly outbox: MemoryDeliveryOutbox;
  /** The self-service sandboxes (lost with the process too). */
  readonly sandboxes: MemorySandboxRegistry;
  /** This sandbox's changes, recorded with each (lost with the process too). */
  readonly changes: ChangeLog;
  /** Retention of every sandbox's changes. */
  readonly changeRetention: MemoryChangeLogs;
  /** Records this sandbox's changes in its log. */
  private readonly recordChange: (id: number, created: StoredPlant | undefined) => void;
  private readonly shared: SharedStorage;
  /** This repository's sandbox; undefined for the default one. */
  private readonly sandboxName: string | undefined;

  /** A new, empty storage (its default sandbox); `within` is for its other sandboxes only. */
  constructor(within?: { readonly shared: SharedStorage; readonly name: string }) {
    this.shared = within?.shared ?? { outbox: new MemoryDeliveryOutbox(), registry: new MemorySandboxRegistry(), sandboxes: new Map(), changeLogs: new MemoryChangeLogs() };
    this.outbox = this.shared.outbox;
    this.sandboxes = this.shared.registry;
    this.sandboxName = within?.name;
    this.changeRetention = this.shared.changeLogs;
    this.changes = this.changeRetention.of(this.sandboxName ?? DEFAULT_SANDBOX);
    this.recordChange = this.changeRetention.recorderOf(this.sandboxName ?? DEFAULT_SANDBOX);
    if (within === undefined) this.shared.sandboxes.set(DEFAULT_SANDBOX, this);
  }

  sandbox(name: string): MemoryPlantRepository {
    let repository = this.shared.sandboxes.get(name);
    // Outbox keys are `<name>/<id>`: a name with a '/' could reach another sandbox's.
    if (repository === undefined) this.shared.sandboxes.set(name, (repository = new MemoryPlantRepository({ shared: this.shared, name: checkedSandboxName(name) })));
    return repository;
  }

  async page({ after = 0, limit, tags }: PageRequest): Promise<Plant[]> {
    if (tags === undefined) return rangeAfter(this.byId, after, limit);
    if (this.byTag === undefined) return rangeAfter(this.byId, after, limit, new Set(tags));
    const byTag = this.byTag;
    // A plant has at most one tag, so the per-tag ranges are disjoint: merge them by id.
    const ranges = tags.flatMap((tag) => {
      const tree = byTag.get(tag);
      return tree === undefined ? [] : [rangeAfter(tree, after, limit)];
    });
    return mergeById(ranges, limit);
  }

  async findById(id: number): Promise<Plant | undefined> {
    const stored = this.byId.get(id);
    return stored && toPlant(id, stored);
  }

  async add(plant: Plant, deliveries: readonly PendingDelivery[] = [], limits?: AddLimits): Promise<boolean> {
    // Checked and added in one synchronous step: concurrent adds at the edge cannot pass it together.
    if (limits?.maxPlants !== undefined && this.byId.size >= limits.maxPlants && !this.byId.has(plant.id)) throw sandboxFull(limits.maxPlants);
    const stored = this.insert(plant);
    if (stored === undefined) return false;
    this.outbox.record(plant.id, this.sandboxName, deliveries);
    this.recordChange(plant.id, stored);
    return true;
  }

  /** A bulk load records no change (PlantRepository.addMany). */
  async addMany(plants: readonly Plant[]): Promise<boolean[]> {
    return plants.map((plant) => this.insert(plant) !== undefined);
  }

  /** Stores `plant` unless its id is taken; what was stored, or undefined. */
  private insert(plant: Plant): StoredPlant | undefined {
    const stored = toStored(plant);
    if (!this.byId.setIfNotPresent(plant.id, stored)) return undefined;
    if (this.byTag !== undefined) {
      if (stored.tag !== undefined) this.tagTree(this.byTag, stored.tag).set(plant.id, stored);
    } else if (this.byId.size > UNINDEXED_PLANTS) {
      this.byTag = new Map();
      for (const [id, each] of this.byId.entries()) if (each.tag !== undefined) this.tagTree(this.byTag, each.tag).set(id, each);
    }
    return stored;
  }

  async remove(id: number, deliveries: readonly PendingDelivery[] = []): Promise<boolean> {
    if (!this.delete(id)) return false;
    this.outbox.record(id, this.sandboxName, deliveries);
    this.recordChange(id, undefined);
    return true;
  }

  /** Removes the plant from its trees; false when there was none. */
  private delete(id: number): boolean {
    const plant = this.byId.get(id);
    if (plant === undefined) return false;
    this.byId.delete(id);
    if (plant.tag !== undefined && this.byTag !== undefined) {
      const tree = this.byTag.get(plant.tag)!;
      tree.delete(id);
      if (tree.size === 0) this.byTag.delete(plant.tag);
    }
    return true;
  }

  async ping(): Promise<void> {}

  async purge(limit: number): Promise<number> {
    // The default sandbox is never purged: only a named, self-service one ends.
    if (this.sandboxName === undefined) return 0;
    const ids: number[] = [];
    for (const id of this.byId.keys()) {
      if (ids.length >= limit) break;
      ids.push(id);
    }
    for (const id of ids) this.delete(id);
    // On every call, the last (nothing left) included: a sandbox whose plants were all deleted has changes too.
    this.changeRetention.drop(this.sandboxName);
    return ids.length + this.outbox.dropSandbox(this.sandboxName, limit - ids.length);
  }

  /** Number of plants held; for tests and benchmarks. */
  get size(): number {
    return this.byId.size;
  }

  private tagTree(byTag: Map<string, Tree>, tag: string): Tree {
    let tree = byTag.get(tag);
    if (tree === undefined) byTag.set(tag, (tree = new BTree<number, StoredPlant>()));
    return tree;
  }
}

/** The first `limit` plants after `after` in `tree`; with `tags`, only those with one of them (a small sandbox's walk). */
function rangeAfter(tree: Tree, after: number, limit: number, tags?: ReadonlySet<string>): Plant[] {
  const plants: Plant[] = [];
  if (limit <= 0) return plants;
  // entries() starts at the first key >= its argument: O(log N), then one step per plant.
  for (const [id, stored] of tree.entries(after + 1)) {
    if (tags !== undefined && (stored.tag === undefined || !tags.has(stored.tag))) continue;
    plants.push(toPlant(id, stored));
    if (plants.length === limit) break;
  }
  return plants;
}

function mergeById(ranges: Plant[][], limit: number): Plant[] {
  if (ranges.length === 1) return ranges[0]!;
  const merged: Plant[] = [];
  const cursors = ranges.map(() => 0);
  while (merged.length < limit) {
    let best = -1;
    for (let r = 0; r < ranges.length; r++) {
      const candidate = ranges[r]![cursors[r]!];
      if (candidate !== undefined && (best < 0 || candidate.id < ranges[best]![cursors[best]!]!.id)) best = r;
    }
    if (best < 0) break;
    merged.push(ranges[best]![cursors[best]!++]!);
  }
  return merged;
}
