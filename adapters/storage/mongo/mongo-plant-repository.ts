import type { Collection, Filter, MongoClient, ServerHeartbeatFailedEvent } from 'mongodb';
import { checkedSandboxName, DEFAULT_SANDBOX, sandboxFull, type AddLimits, type ChangeLog, type PageRequest, type PendingDelivery, type Plant, type PlantRepository } from '../../../core/index.js';
import { MongoDeliveryOutbox, DUE_INDEX } from './mongo-delivery-outbox.js';
import { insertEach } from './insert-each.js';
import { addWithDeliveries, removeWithDeliveries } from './mongo-outbox-writes.js';
import { connectFailure, withDeadline } from './mongo-errors.js';
import { DEFAULT_STORAGE_TIMEOUT_MS } from '../storage-unavailable.js';
import { DEFAULT_COLLECTION_NAME, DEFAULT_DATABASE_NAME, DEFAULT_MONGODB_CHANGE_LOG } from './mongo-defaults.js';
import { keysAfter, keysOf, plantKey, plantProjection, toDocument, toPlant, type PlantDocument, type PlantKey } from './plant-document.js';
import { MongoSandboxRegistry } from './mongo-sandbox-registry.js';
import { MongoChangeLog } from './mongo-change-log.js';
import { collectionsOf, createClient, databaseNameIn, type MongoCollections } from './mongo-collections.js';
import type { Written } from './pending-changes.js';
import { RECOUNT_QUIET_MS, SandboxCounts } from './sandbox-counts.js';

export interface MongoPlantRepositoryOptions {
  /** Used when the URI names no database (`mongodb://host/<database>`). Default DEFAULT_DATABASE_NAME. */
  readonly databaseName?: string;
  /** Default `plants`. */
  readonly collectionName?: string;
  /** Longest wait for any one call, in ms, before it fails as storage unavailable. Default DEFAULT_STORAGE_TIMEOUT_MS. */
  readonly timeoutMS?: number;
  /**
   * Keep the change log (`<collection>_changes`) the change feed follows. Default
   * DEFAULT_MONGODB_CHANGE_LOG (true). Off,
   * a create or delete is one single-document write, not three (the plant with its change,
   * the copy into the log, the change taken out), and the repository has no `changes`.
   */
  readonly changeLog?: boolean;
}

/** Longest a readiness ping may take (never longer than the call timeout). */
export const PING_TIMEOUT_MS = 1000;
export { DEFAULT_COLLECTION_NAME, DEFAULT_DATABASE_NAME } from './mongo-defaults.js';
export { databaseNameIn, durableWrite, type MongoCollections } from './mongo-collections.js';

/** Serves `tag` filters: equal tags, then keys in order, so a page is a range per tag (in any sandbox: see PlantKey). */
export const TAG_INDEX = { key: { tag: 1, _id: 1 }, name: 'tag_1__id_1' } as const;

/** How many sandboxes' views a repository keeps at most (see sandbox()). */
const KEPT_VIEWS = 1024;

/**
 * Plants in one MongoDB collection, one document per plant (see PlantDocument). Every call
 * ends within `timeoutMS`: a database that is down, unreachable or slow gives
 * PlantStoreError(StorageUnavailable). The driver reconnects by itself, so the same
 * instance works again once the database is back. The repository holds the default
 * sandbox's plants; `sandbox(name)` a named one's, in the same collection under keys of
 * their own (see PlantKey), with the same outbox. A named sandbox also keeps a count of its
 * plants, for quotas (see SandboxCounts); the self-service sandboxes' grants are kept beside
 * (`sandboxes`, see MongoSandboxRegistry). With the change log (the default; see
 * MongoPlantRepositoryOptions.changeLog), every add and remove records its change in it (see
 * MongoChangeLog), and answers once it is there.
 */
export class MongoPlantRepository implements PlantRepository {
  /**
   * Connects, creates the indexes, and returns a repository that owns the client (close()
   * closes it). Fails with StorageUnavailable when the database cannot be reached in time.
   */
  static async connect(uri: string, options: MongoPlantRepositoryOptions = {}): Promise<MongoPlantRepository> {
    const timeoutMS = options.timeoutMS ?? DEFAULT_STORAGE_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMS) || timeoutMS <= 0) throw new RangeError(`timeoutMS must be a positive integer, got ${timeoutMS}`);
    const client = createClient(uri, timeoutMS);
    const databaseName = databaseNameIn(uri) ?? options.databaseName ?? DEFAULT_DATABASE_NAME;
    const collectionName = options.collectionName ?? DEFAULT_COLLECTION_NAME;
    const description = `mongodb ${client.options.hosts.join(',')}/${databaseName}.${collectionName}`;
    const { changes, ...withoutLog } = collectionsOf(client, databaseName, collectionName, timeoutMS);
    const collections = (options.changeLog ?? DEFAULT_MONGODB_CHANGE_LOG) ? { ...withoutLog, changes } : withoutLog;
    const repository = new MongoPlantRepository(client, collections, timeoutMS, description);
    // The monitor's failed checks say why a server cannot be reached (refused, not found…),
    // where the connect call itself may only time out.
    const checks: Error[] = [];
    const onFailedCheck = (event: ServerHeartbeatFailedEvent) => checks.push(event.failure);
    client.on('serverHeartbeatFailed', onFailedCheck);
    try {
      await withDeadline(timeoutMS, () => client.connect());
      await repository.ensureIndexes();
    } catch (error) {
      await repository.close().catch(() => {});
      throw connectFailure(client.options.hosts.join(','), timeoutMS, [error, ...checks]);
    } finally {
      client.off('serverHeartbeatFailed', onFailedCheck);
    }
    return repository;
  }

  /**
   * A repository on collections the caller made: a deterministic simulation passes
   * stand-ins whose every operation it orders (see test/simulation/). Owns no client.
   */
  static over(collections: MongoCollections, options: { timeoutMS?: number; random?: () => number; now?: () => number } = {}): MongoPlantRepository {
    return new MongoPlantRepository(undefined, collections, options.timeoutMS ?? DEFAULT_STORAGE_TIMEOUT_MS, 'collections given by the caller', options);
  }

  private readonly collection: Collection<PlantDocument>;
  private readonly collections: MongoCollections;
  /** The deliveries recorded inside the plants' documents, every sandbox's. */
  readonly outbox: MongoDeliveryOutbox;
  /** The default sandbox's repository, which connect() or over() made: it owns the client and keeps the views. */
  private readonly root: MongoPlantRepository;
  /** The root's views of the named sandboxes asked for most recently, least recent first. */
  private readonly views = new Map<string, MongoPlantRepository>();
  /** This repository's sandbox; undefined for the default one. */
  private readonly sandboxName: string | undefined;
  /** The named sandboxes' counts, for quotas; absent on collections given without them. */
  private readonly counts: SandboxCounts | undefined;
  /** The self-service sandboxes (every view has the root's); absent on collections given without them. */
  readonly sandboxes: MongoSandboxRegistry | undefined;
  /** Every sandbox's change log and its retention (every view has the root's); absent on collections given without it. */
  readonly changeRetention: MongoChangeLog | undefined;
  /** This sandbox's change log. */
  readonly changes: ChangeLog | undefined;

  private constructor(
    private readonly client: MongoClient | undefined,
    collections: MongoCollections,
    private readonly timeoutMS: number,
    /** Where the plants are, for start-up lines and logs: hosts, database and collection, never credentials. */
    readonly description: string,
    /** The outbox's choices and the counts' clock; a simulation passes its own. */
    own: { readonly random?: () => number; readonly now?: () => number } = {},
    /** For a named sandbox: the default sandbox's repository this is a view beside, and the name. */
    view?: { readonly root: MongoPlantRepository; readonly name: string },
  ) {
    this.collections = collections;
    this.collection = collections.plants;
    this.root = view?.root ?? this;
    this.outbox = view?.root.outbox ?? new MongoDeliveryOutbox(collections.plants, collections.leases, collections.endpoints, timeoutMS, own.random);
    this.sandboxName = view?.name;
    const quietMs = Math.max(RECOUNT_QUIET_MS, 10 * timeoutMS);
    this.counts = view?.root.counts ?? (collections.sandboxCounts && new SandboxCounts(collections.sandboxCounts, own.now ?? Date.now, quietMs));
    this.sandboxes = view?.root.sandboxes ?? (collections.sandboxGrants && new MongoSandboxRegistry(collections.sandboxGrants, timeoutMS));
    this.changeRetention = view?.root.changeRetention ?? (collections.changes && new MongoChangeLog(collections.changes, collections.plants, timeoutMS, own));
    this.changes = this.changeRetention?.of(view?.name ?? DEFAULT_SANDBOX);
  }

  /**
   * The named sandbox's plants: a view on the same collections and outbox, so asking for it
   * per request costs nothing. Only the views of the most recently asked names are kept, so
   * sandboxes coming and going (self-service ones expire) do not pile up in memory.
   */
  sandbox(name: string): MongoPlantRepository {
    const { root } = this;
    if (name === DEFAULT_SANDBOX) return root;
    let view = root.views.get(name);
    if (view === undefined) {
      view = new MongoPlantRepository(this.client, this.collections, this.timeoutMS, this.description, {}, { root, name: checkedSandboxName(name) });
      if (root.views.size >= KEPT_VIEWS) root.views.delete(root.views.keys().next().value!);
    } else root.views.delete(name);
    root.views.set(name, view);
    return view;
  }

  /** Creates the indexes this repository relies on; safe to call again (MongoDB keeps existing ones). */
  async ensureIndexes(): Promise<void> {
    await withDeadline(this.timeoutMS, () => this.collection.createIndex(TAG_INDEX.key, { name: TAG_INDEX.name }));
    await withDeadline(this.timeoutMS, () => this.collection.createIndex(DUE_INDEX.key, { name: DUE_INDEX.name }));
    // In a collection of their own, which the release before self-service sandboxes never reads.
    await this.sandboxes?.ensureIndexes();
    await this.changeRetention?.ensureIndexes();
  }

  async page({ after = 0, limit, tags }: PageRequest): Promise<Plant[]> {
    // MongoDB reads limit 0 as "no limit"; an empty page is what was asked for.
    if (limit <= 0) return [];
    // Tombstones (deleted plants with deliveries left, see mongo-outbox-writes.ts) are few
    // and short-lived: skipped here and topped up from further on, so the query stays the
    // plain index range it is without webhooks. Tombstones carry no tag.
    const plants: Plant[] = [];
    let from = after;
    for (;;) {
      const wanted = limit - plants.length;
      const documents = await this.rawPage(from, wanted, tags);
      for (const document of documents) if (document.gone !== true) plants.push(toPlant(document));
      // A short read is the end of the range; a full one with tombstones in it leaves room to fill.
      if (documents.length < wanted || plants.length >= limit) return plants;
      from = toPlant(documents[documents.length - 1]!).id;
    }
  }

  private async rawPage(after: number, limit: number, tags: readonly string[] | undefined): Promise<PlantDocument[]> {
    // One range scan of an index: `_id` alone, or `{tag, _id}` per tag merged by id
    // (MongoDB's sort merge of the `$in` ranges), so a page costs O(limit + log N). The
    // range is the sandbox's keys: numbers for the default one, as before sandboxes existed.
    const filter = { _id: keysAfter(after, this.sandboxName) } as Filter<PlantDocument>;
    if (tags !== undefined) filter.tag = { $in: [...tags] };
    const documents = await withDeadline(this.timeoutMS, (signal) =>
      this.collection
        .find(filter, {
          sort: { _id: 1 },
          limit,
          batchSize: limit,
          projection: plantProjection,
          maxTimeMS: this.timeoutMS,
          signal,
          // Pin the plan: a rare tag walked through the `_id` index would cost O(N).
          ...(tags === undefined ? {} : { hint: TAG_INDEX.key }),
        })
        .toArray(),
    );
    return documents;
  }

  // Keys are made before the deadline's call: an id no key can hold is a bug to be seen as
  // such (RangeError), not a storage unavailable.
  async findById(id: number): Promise<Plant | undefined> {
    const key = plantKey(id, this.sandboxName);
    const document = await withDeadline(this.timeoutMS, (signal) =>
      this.collection.findOne({ _id: key }, { projection: plantProjection, maxTimeMS: this.timeoutMS, signal }),
    );
    return document === null || document.gone === true ? undefined : toPlant(document);
  }

  async add(plant: Plant, deliveries: readonly PendingDelivery[] = [], limits?: AddLimits): Promise<boolean> {
    const key = plantKey(plant.id, this.sandboxName);
    const { sandboxName: name, counts } = this;
    const max = limits?.maxPlants;
    if (name === undefined || counts === undefined) {
      // Quotas are for named (self-service) sandboxes: the default one's writes stay as they were.
      if (max !== undefined) throw new RangeError(name === undefined ? 'the default sandbox keeps no quota' : 'these collections keep no sandbox counts');
      return withDeadline(this.timeoutMS, async () => this.copied(await addWithDeliveries(this.collection, plant, deliveries, key, this.changeRetention?.created(plant))));
    }
    // A named sandbox counts its plants (see SandboxCounts): room first, then the insert.
    return withDeadline(this.timeoutMS, async (signal) => {
      if (!(await counts.reserve(name, 1, max))) {
        // Full by the count. A taken id is answered as such first (409 before 403).
        if (await this.holds(key)) return false;
        if (!(await counts.recount(name, () => this.livePlants())) || !(await counts.reserve(name, 1, max))) throw sandboxFull(max!);
      }
      // Past the deadline the caller has its answer: no insert may land after it unseen.
      if (signal.aborted) {
        await counts.giveBack(name, 1);
        return false;
      }
      // A failure here leaves the room taken (the insert may have landed): one high at worst, until a recount.
      const written = await addWithDeliveries(this.collection, plant, deliveries, key, this.changeRetention?.created(plant));
      if (written === false) await counts.giveBack(name, 1);
      return this.copied(written);
    });
  }

  /**
   * One unordered insertMany (imports and sandbox seeds: no deliveries recorded, and no change
   * in the change log; see docs/storage.md): every plant is tried, and
   * the unique `_id` index refuses the taken ids (repeats within the list included, and ids
   * whose deletion still awaits delivery), each reported false.
   */
  async addMany(plants: readonly Plant[]): Promise<boolean[]> {
    const documents = plants.map((plant) => toDocument(plant, this.sandboxName));
    const { sandboxName: name, counts } = this;
    if (name === undefined || counts === undefined || documents.length === 0) return withDeadline(this.timeoutMS, () => insertEach(this.collection, documents));
    // Counted like adds (without a quota: a sandbox's seed and imports go in whole), the refused given back.
    return withDeadline(this.timeoutMS, async () => {
      await counts.reserve(name, documents.length);
      const inserted = await insertEach(this.collection, documents);
      await counts.giveBack(name, inserted.filter((done) => !done).length);
      return inserted;
    });
  }

  async remove(id: number, deliveries: readonly PendingDelivery[] = []): Promise<boolean> {
    const key = plantKey(id, this.sandboxName);
    const { sandboxName: name, counts } = this;
    if (name === undefined || counts === undefined) return withDeadline(this.timeoutMS, async () => this.copied(await removeWithDeliveries(this.collection, id, deliveries, key, this.changeRetention?.deleted(id))));
    return withDeadline(this.timeoutMS, async () => {
      // Read before the delete: a recount after it may already leave the plant out (see SandboxCounts).
      const epoch = await counts.epochOf(name);
      const written = await removeWithDeliveries(this.collection, id, deliveries, key, this.changeRetention?.deleted(id));
      if (written !== false) await counts.countOff(name, 1, epoch);
      return this.copied(written);
    });
  }

  /**
   * Whether the write was done, once the change it left in its document is in the change log:
   * the answer waits for the copy, so an acknowledged change is in every server's feed (a
   * writer that stops before copying leaves it to the sweeper, but has acknowledged nothing).
   */
  private async copied(written: Written): Promise<boolean> {
    if (typeof written === 'object') await this.changeRetention!.copy(written);
    return written !== false;
  }

  /**
   * Removes up to `limit` of a named sandbox's documents, tombstones and their deliveries
   * included, with their lease documents; answers how many it found, 0 once none is left
   * (the sandbox's count and its change log then go too). The default sandbox is never purged.
   */
  async purge(limit: number): Promise<number> {
    const { sandboxName: name, counts } = this;
    if (name === undefined || limit <= 0) return 0;
    return withDeadline(this.timeoutMS, async (signal) => {
      const epoch = await counts?.epochOf(name);
      // One range of the `_id` index, as a page is.
      const found = await this.collection.find({ _id: keysOf(name) } as Filter<PlantDocument>, { sort: { _id: 1 }, limit, projection: { _id: 1, gone: 1 }, signal }).toArray();
      if (found.length === 0) {
        // The plants first, so a change written meanwhile goes with the rest.
        await this.changeRetention?.drop(name);
        await counts?.forget(name);
        return 0;
      }
      const live = found.filter((document) => document.gone !== true).map((document) => document._id);
      const gone = found.filter((document) => document.gone === true).map((document) => document._id);
      // Each delete re-checks what it read, so the count is taken off by exactly the plants deleted.
      const deleted = live.length === 0 ? 0 : (await this.collection.deleteMany({ _id: { $in: live }, gone: { $exists: false } } as Filter<PlantDocument>)).deletedCount;
      if (gone.length > 0) await this.collection.deleteMany({ _id: { $in: gone }, gone: true } as Filter<PlantDocument>);
      // A claim holding one of them finds its document gone when it settles, and lets go.
      await this.collections.leases.deleteMany({ _id: { $in: found.map((document) => document._id) } });
      await counts?.countOff(name, deleted, epoch);
      return found.length;
    });
  }

  /** Whether a live plant (not a tombstone) has this key. */
  private async holds(key: PlantKey): Promise<boolean> {
    return (await this.collection.findOne({ _id: key, gone: { $exists: false } } as Filter<PlantDocument>, { projection: { _id: 1 } })) !== null;
  }

  /** The live plants of this (named) sandbox: what a recount sets its count to. */
  private livePlants(): Promise<number> {
    return this.collection.countDocuments({ _id: keysOf(this.sandboxName), gone: { $exists: false } } as Filter<PlantDocument>);
  }

  async ping(): Promise<void> {
    // Readiness probes want a quick answer: a database that needs longer is not ready.
    const timeoutMS = Math.min(this.timeoutMS, PING_TIMEOUT_MS);
    await withDeadline(timeoutMS, (signal) => (this.client === undefined ? this.collection.findOne({}, { signal }) : this.client.db('admin').command({ ping: 1 }, { signal })));
  }

  /** Closes the connections; bounded like every other call. A sandbox's view leaves them to the repository it came from. */
  async close(): Promise<void> {
    if (this.root !== this) return;
    this.changeRetention?.close();
    if (this.client !== undefined) await withDeadline(this.timeoutMS, () => this.client!.close());
  }
}
